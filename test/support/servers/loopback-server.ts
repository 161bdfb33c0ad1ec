import { once } from 'node:events';
import type { Server } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';

/** Listens on a free loopback port until the test ends; resolves to the port. */
export async function listenForTest(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  );
  return (server.address() as AddressInfo).port;
}

/**
 * A TCP server on a free loopback port that accepts connections (each given to `accepted`) and
 * destroys them when the test ends; resolves to the port.
 */
export async function tcpServerForTest(accepted: (socket: Socket) => void = () => undefined) {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    accepted(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}
