import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';

export interface PausableProxy {
  /** `host:port` to connect to instead of the upstream. */
  readonly address: string;
  /**
   * Stops reading from every connection's client, as a peer whose receive window has closed: what
   * the client writes stays in its own socket buffers, nothing is dropped, nothing is reset.
   * Toxiproxy cannot do this: even its `timeout` toxic goes on reading, and drops the bytes.
   */
  pause(): void;
  /** Reads from every client again, and from new ones. */
  resume(): void;
}

/** A TCP proxy to `upstream` (`host:port`) until the test ends. */
export async function pausableProxy(upstream: string): Promise<PausableProxy> {
  const [host = '', port = ''] = upstream.split(':');
  /** Each client's connection to the upstream. */
  const clients = new Map<Socket, Socket>();
  let paused = false;
  const server = createServer((client) => {
    const upstreamSocket = connect(Number(port), host);
    clients.set(client, upstreamSocket);
    client.on('close', () => clients.delete(client));
    for (const [from, to] of [
      [client, upstreamSocket],
      [upstreamSocket, client],
    ] as const) {
      from.on('error', () => to.destroy());
      from.on('close', () => to.destroy());
    }
    upstreamSocket.pipe(client);
    if (!paused) client.pipe(upstreamSocket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    for (const client of clients.keys()) client.destroy();
    server.close();
  });
  return {
    address: `127.0.0.1:${String((server.address() as AddressInfo).port)}`,
    pause() {
      paused = true;
      for (const client of clients.keys()) {
        client.unpipe();
        client.pause();
      }
    },
    resume() {
      paused = false;
      for (const [client, upstreamSocket] of clients) client.pipe(upstreamSocket);
    },
  };
}
