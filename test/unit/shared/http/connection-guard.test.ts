import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { guardConnections } from '#shared/http/connection-guard.ts';
import {
  CAP_REASON,
  guarded,
  exhausted,
  guardedIdleServer,
} from '#test/support/servers/guarded-server.ts';

/** An HTTP server on 127.0.0.1 that answers `served` to any request. */
async function listeningHttpServer() {
  const server = createHttpServer((_request, response) => {
    response.end('served');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  );
  return { server, port: (server.address() as AddressInfo).port };
}

/** A client connection whose bytes are gathered and whose close is awaited. */
async function client(port: number) {
  const socket = connect(port, '127.0.0.1');
  onTestFinished(() => {
    socket.destroy();
  });
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => {
    socket.once('close', () => {
      resolve();
    });
  });
  await once(socket, 'connect');
  return {
    socket,
    closed: () => within(closed, 'the server did not close the connection'),
    received: () => received,
  };
}

/** `promise`, or a failure saying `what` if it has not settled within 2 s. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} within 2 s`));
    }, 2_000);
  });
  return Promise.race([promise, late]).finally(() => {
    clearTimeout(timer);
  });
}

/** Sends a request on a kept-alive connection and waits for its whole answer. */
async function request(connection: Awaited<ReturnType<typeof client>>) {
  const before = connection.received().length;
  connection.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
  await expect
    .poll(() => connection.received().slice(before), { timeout: 5_000 })
    .toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nserved$/);
}

/** Waits until the server counts `count` connections of its own. */
async function serverHolds(server: Server, count: number) {
  await expect
    .poll(
      () =>
        new Promise<number>((resolve) => {
          server.getConnections((_error, open) => {
            resolve(open);
          });
        }),
      { timeout: 5_000 },
    )
    .toBe(count);
}

const isOpen = (socket: Socket) => !socket.destroyed && socket.readyState === 'open';

describe('A guarded HTTP port at its connection cap', () => {
  it('When a connection comes beyond the cap, then the server closes it at once, the two before stay open and are served, and it is counted', async () => {
    const { server, port } = await listeningHttpServer();
    const { guard, metric } = guarded(server);
    guard.watchAccepts();
    const first = await client(port);
    const second = await client(port);
    await serverHolds(server, 2);

    const third = await client(port);
    await third.closed();

    expect(third.received()).toBe('');
    expect(isOpen(first.socket)).toBe(true);
    expect(isOpen(second.socket)).toBe(true);
    await request(first);
    await request(second);
    expect(await metric('plant_store_http_connections_refused_total')).toBe(1);
    expect(await metric('plant_store_http_connections')).toBe(2);
    expect(await metric('plant_store_http_max_connections')).toBe(2);
  });

  it('When connections are refused, then the port is not ready, naming its cap, until the quiet time passes, and the burst is logged once at its start and once at its end', async () => {
    const { server, port } = await listeningHttpServer();
    // Long enough that the refusals are still a burst when they have been counted.
    const { guard, logger, metric } = guarded(server, { quietMs: 500 });
    await client(port);
    await client(port);
    await serverHolds(server, 2);
    expect(guard.notReadyReason()).toBeUndefined();

    await (await client(port)).closed();
    await (await client(port)).closed();

    expect(guard.notReadyReason()).toBe(CAP_REASON);
    expect(await metric('plant_store_http_connections_refused_total')).toBe(2);
    expect(logger.warn.mock.calls).toEqual([
      [{ maxConnections: 2 }, 'connection cap reached: new connections are closed at once'],
    ]);
    await expect.poll(() => guard.notReadyReason(), { timeout: 5_000 }).toBeUndefined();
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.info.mock.calls).toEqual([
      [{ refused: 2, lastedMs: expect.any(Number) as unknown }, 'connections below the cap again'],
    ]);
    expect(logger.error).not.toHaveBeenCalled();
  });

  it('When a configured cap is given, then the cap gauge reports it', async () => {
    const server = createServer();
    const { metric } = guarded(server, { maxConnections: 64 });

    expect(server.maxConnections).toBe(64);
    expect(await metric('plant_store_http_max_connections')).toBe(64);
    expect(await metric('plant_store_http_connections')).toBe(0);
  });
});

describe('Two guarded ports of one process', () => {
  it('When a second port is guarded with series of its own in the same registry, then each reports its own cap and connections, and both count their exhaustion errors in the one counter, each by its source', async () => {
    const main = guarded(createServer(), { maxConnections: 64 });
    const second = createServer();
    const guard = guardConnections(second, {
      maxConnections: 8,
      registry: main.registry,
      logger: main.logger,
      series: 'metrics_http',
    });
    onTestFinished(() => {
      guard.stop();
    });

    main.guard.observe(exhausted('EMFILE'), 'client');
    guard.observe(exhausted('EMFILE'), 'accept');

    expect(await main.metric('plant_store_http_max_connections')).toBe(64);
    expect(await main.metric('plant_store_metrics_http_max_connections')).toBe(8);
    expect(await main.metric('plant_store_metrics_http_connections')).toBe(0);
    expect(second.maxConnections).toBe(8);
    guard.watchAccepts();
    second.emit('error', exhausted('EMFILE'));
    expect(await main.exhaustions()).toEqual([
      { code: 'EMFILE', source: 'client', value: 1 },
      { code: 'EMFILE', source: 'accept', value: 1 },
      { code: 'EMFILE', source: 'metrics_http accept', value: 1 },
    ]);
  });
});

describe('A guarded HTTP port’s exhaustion errors', () => {
  it.each(['EMFILE', 'ENFILE', 'ENOMEM', 'ENOBUFS'])(
    'When an error with code %s is observed, then it is an exhaustion, counted by code and source',
    async (code) => {
      const { guard, exhaustions } = guardedIdleServer();

      expect(guard.observe(exhausted(code), 'client')).toBe(true);
      expect(guard.observe(exhausted(code), 'client')).toBe(true);
      expect(guard.observe(exhausted(code), 'accept')).toBe(true);

      expect(await exhaustions()).toEqual([
        { code, source: 'client', value: 2 },
        { code, source: 'accept', value: 1 },
      ]);
    },
  );

  it.each([
    ['a reset connection', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['an error without a code', new Error('something else')],
    ['a code that is not a string', { code: 24 }],
    ['a string', 'EMFILE'],
    ['null', null],
    ['undefined', undefined],
  ])(
    'When %s is observed, then it is not an exhaustion: not counted, logged or told',
    async (_what, error) => {
      const { guard, logger, exhaustions } = guardedIdleServer();

      expect(guard.observe(error, 'client')).toBe(false);

      expect(await exhaustions()).toEqual([]);
      expect(guard.notReadyReason()).toBeUndefined();
      expect(logger.error).not.toHaveBeenCalled();
    },
  );
});
