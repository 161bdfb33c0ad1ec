import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { closeIdleConnectionsAfterReading } from '#shared/http/keep-alive.ts';

/** Long enough that a test worker starved for a few hundred ms still sends in time. */
const KEEP_ALIVE_MS = 1_000;
const CLIENTS = 10;
const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: test\r\n\r\n`;

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** `server` listening with a keep-alive timeout of KEEP_ALIVE_MS exactly, and how to connect to it. */
async function listening(server: Server): Promise<() => Promise<Socket>> {
  servers.push(server);
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.keepAliveTimeoutBuffer = 0;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return socket;
  };
}

/**
 * Keep-alive connections that each made one request, then, just before their idle timer falls due,
 * send their next request while the server is busy in a long turn of its event loop (a /busy
 * request it answers after 1.5 × KEEP_ALIVE_MS of work): what each client got for that request.
 */
async function requestsSentAsIdleTimersFallDue(
  server: Server,
): Promise<('answered' | 'reset' | 'closed')[]> {
  const clients: Socket[] = [];
  server.on('request', (incoming, response) => {
    if (incoming.url === '/busy') {
      // Written from inside the long turn: the server reads them no sooner than its next turn.
      for (const client of clients) client.write(request('/next'));
      const until = Date.now() + 1.5 * KEEP_ALIVE_MS;
      while (Date.now() < until);
    }
    response.end('ok');
  });
  const open = await listening(server);
  clients.push(...(await Promise.all(Array.from({ length: CLIENTS }, open))));
  const busy = await open();
  await Promise.all(
    clients.map((client) => {
      client.write(request('/first'));
      return once(client, 'data');
    }),
  );
  const outcomes = clients.map(
    (client) =>
      new Promise<'answered' | 'reset' | 'closed'>((resolve) => {
        client.once('data', () => {
          resolve('answered');
        });
        client.once('error', () => {
          resolve('reset');
        });
        client.once('end', () => {
          resolve('closed');
        });
      }),
  );
  await sleep(KEEP_ALIVE_MS / 2);
  busy.write(request('/busy'));
  const answers = await Promise.all(outcomes);
  for (const socket of [...clients, busy]) socket.destroy();
  return answers;
}

describe('closeIdleConnectionsAfterReading', () => {
  it('When clients send their next request on idle connections as the server is busy past their keep-alive timeout, then Node alone resets them, and with it each is answered', async () => {
    const plain = await requestsSentAsIdleTimersFallDue(createServer());
    const kept = await requestsSentAsIdleTimersFallDue(
      closeIdleConnectionsAfterReading(createServer()),
    );

    expect(plain).toEqual(Array(CLIENTS).fill('reset'));
    expect(kept).toEqual(Array(CLIENTS).fill('answered'));
  });

  it('When an idle connection sends nothing, then it is closed after its keep-alive timeout as before', async () => {
    const open = await listening(
      closeIdleConnectionsAfterReading(createServer((_request, response) => response.end('ok'))),
    );
    const socket = await open();
    socket.write(request('/only'));
    await once(socket, 'data');
    const answeredAt = Date.now();

    await once(socket, 'end');
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 10);
    expect(Date.now() - answeredAt).toBeLessThan(KEEP_ALIVE_MS * 3);
    socket.destroy();
  });
});
