import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Node closes a keep-alive connection when its idle timer fires, and the event loop runs timers
 * before it reads sockets. After a turn long enough for that timer to fall due (a busy gateway's
 * turns take tens of ms), a client that sent its next request on the connection meanwhile has it
 * in the socket unread, and closing a socket with unread bytes resets it: the client gets
 * ECONNRESET for a request the server never saw, and may not retry a POST. So an idle connection
 * is closed only after the loop's next read, and kept when that read brought a request (whose
 * head and body the server's own timeouts then bound). A request that arrives while that read
 * runs can still be reset: only clients that close idle connections before the server does are
 * safe from the race (docs/decisions/0011-connections-bounded.md). Returns the server.
 */
export function closeIdleConnectionsAfterReading<S extends Server>(server: S): S {
  server.on('timeout', (socket: Socket) => {
    const read = socket.bytesRead;
    setImmediate(() => {
      if (socket.bytesRead === read) socket.destroy();
    });
  });
  return server;
}
