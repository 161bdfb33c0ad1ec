import { openSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { guardConnections, type ConnectionGuardOptions } from '#shared/connection-guard.ts';

// The probe opens /dev/null with openSync; the ESM namespace of node:fs cannot be spied on, so the
// module is mocked with the real functions, openSync wrapped so that a test can make it fail.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, openSync: vi.fn(fs.openSync) };
});
const opens = vi.mocked(openSync);

const QUIET_MS = 200;
const PROBE_EVERY_MS = 100;

const CAP_REASON = 'at its cap of 2 connections: new ones are closed at once';

function spyLogger() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
}

function guarded(server: Server, options: Partial<ConnectionGuardOptions> = {}) {
  const registry = new Registry();
  const logger = spyLogger();
  const guard = guardConnections(server, {
    maxConnections: 2,
    registry,
    logger,
    quietMs: QUIET_MS,
    probeEveryMs: PROBE_EVERY_MS,
    ...options,
  });
  onTestFinished(() => {
    guard.stop();
  });
  /** The value of a metric, with these labels or its only one. */
  const metric = async (name: string, labels: Record<string, string> = {}) => {
    const { values } = (await registry.getSingleMetric(name)?.get()) ?? { values: [] };
    return values.find((value) =>
      Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted),
    )?.value;
  };
  const exhaustions = async () => {
    const { values } = (await registry
      .getSingleMetric('plant_store_resource_exhaustion_total')
      ?.get()) ?? { values: [] };
    return values.map(({ labels, value }) => ({ ...labels, value }));
  };
  return { guard, registry, logger, metric, exhaustions };
}

const exhausted = (code: string) => Object.assign(new Error(`${code}: out of something`), { code });

/** A guard on a server that never listens: its events are emitted by the test. */
function guardedIdleServer(options: Partial<ConnectionGuardOptions> = {}) {
  const server = createServer();
  return { server, ...guarded(server, options) };
}

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

describe('A guarded HTTP port over time', () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
    });
    opens.mockClear();
  });
  afterEach(() => {
    vi.useRealTimers();
    // Back to the real openSync.
    opens.mockReset();
  });

  it('When descriptors run out, then the port says so until the quiet time has passed, logging the burst once at error and its end once', () => {
    const { guard, logger } = guardedIdleServer();
    const first = exhausted('EMFILE');

    guard.observe(first, 'client');
    vi.advanceTimersByTime(QUIET_MS - 1);
    guard.observe(exhausted('EMFILE'), 'client');
    vi.advanceTimersByTime(QUIET_MS - 1);

    expect(guard.notReadyReason()).toBe('out of file descriptors (EMFILE)');
    expect(logger.error.mock.calls).toEqual([
      [{ err: first, source: 'client' }, 'out of file descriptors: surviving'],
    ]);
    vi.advanceTimersByTime(1);
    expect(guard.notReadyReason()).toBeUndefined();
    expect(logger.info.mock.calls).toEqual([
      [{ errors: 2, lastedMs: QUIET_MS - 1 }, 'no longer out of file descriptors'],
    ]);
    vi.advanceTimersByTime(QUIET_MS * 10);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.info).toHaveBeenCalledTimes(1);
  });

  it('When another exhaustion comes after the quiet time, then it is a new burst, logged again', () => {
    const { guard, logger } = guardedIdleServer();
    guard.observe(exhausted('EMFILE'), 'client');
    vi.advanceTimersByTime(QUIET_MS);

    guard.observe(exhausted('ENOMEM'), 'client');

    expect(guard.notReadyReason()).toBe('out of memory (ENOMEM)');
    expect(logger.error.mock.calls.map(([, message]) => message as string)).toEqual([
      'out of file descriptors: surviving',
      'out of memory: surviving',
    ]);
  });

  it('When the port is both at its cap and out of descriptors, then it is the exhaustion that is told, then the cap while it lasts', () => {
    const { server, guard, logger } = guardedIdleServer();

    server.emit('drop', {});
    expect(guard.notReadyReason()).toBe(CAP_REASON);
    vi.advanceTimersByTime(100);
    guard.observe(exhausted('ENFILE'), 'client');
    expect(guard.notReadyReason()).toBe("out of the system's file descriptors (ENFILE)");
    vi.advanceTimersByTime(50);
    server.emit('drop', {});

    // The exhaustion is over 200 ms after its error, at 300 ms; the refusals at 350 ms.
    vi.advanceTimersByTime(QUIET_MS - 50 - 1);
    expect(guard.notReadyReason()).toBe("out of the system's file descriptors (ENFILE)");
    vi.advanceTimersByTime(1);
    expect(guard.notReadyReason()).toBe(CAP_REASON);
    vi.advanceTimersByTime(50);
    expect(guard.notReadyReason()).toBeUndefined();
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it('When accepts are watched and the server fails to accept for want of descriptors, then it is counted with source accept and nothing throws', async () => {
    const { server, guard, logger, exhaustions } = guardedIdleServer();
    guard.watchAccepts();

    expect(() =>
      server.emit('error', Object.assign(new Error('accept failed'), { code: 'EMFILE' })),
    ).not.toThrow();

    expect(await exhaustions()).toEqual([{ code: 'EMFILE', source: 'accept', value: 1 }]);
    expect(guard.notReadyReason()).toBe('out of file descriptors (EMFILE)');
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ source: 'accept' }),
      'out of file descriptors: surviving',
    );
  });

  it('When accepts are watched and the server fails to accept for another reason, then it is logged, not counted, and nothing throws', async () => {
    const { server, guard, logger, exhaustions } = guardedIdleServer();
    guard.watchAccepts();
    const error = Object.assign(new Error('accept failed'), { code: 'ECONNABORTED' });

    expect(() => server.emit('error', error)).not.toThrow();

    expect(logger.error.mock.calls).toEqual([[{ err: error }, 'the HTTP port failed to accept']]);
    expect(await exhaustions()).toEqual([]);
    expect(guard.notReadyReason()).toBeUndefined();
  });

  it('When accepts are not watched yet, then a server error is not swallowed', () => {
    const { server } = guardedIdleServer();

    expect(() =>
      server.emit('error', Object.assign(new Error('accept failed'), { code: 'EMFILE' })),
    ).toThrow('accept failed');
  });

  it('When the descriptor probe cannot open a descriptor, then it is counted with source descriptor probe and the port is not ready', async () => {
    const { guard, exhaustions } = guardedIdleServer();
    vi.advanceTimersByTime(PROBE_EVERY_MS * 3);
    expect(opens).toHaveBeenCalledTimes(3);
    expect(opens.mock.results[0]).toEqual({ type: 'return', value: expect.any(Number) as number });
    expect(await exhaustions()).toEqual([]);

    opens.mockImplementation(() => {
      throw exhausted('EMFILE');
    });
    vi.advanceTimersByTime(PROBE_EVERY_MS * 2);

    expect(await exhaustions()).toEqual([{ code: 'EMFILE', source: 'descriptor probe', value: 2 }]);
    expect(guard.notReadyReason()).toBe('out of file descriptors (EMFILE)');
  });

  it('When the guard is stopped, then its probe and quiet timers are cleared and nothing more is observed', async () => {
    const { server, guard, logger, exhaustions } = guardedIdleServer();
    opens.mockImplementation(() => {
      throw exhausted('EMFILE');
    });
    vi.advanceTimersByTime(PROBE_EVERY_MS);
    server.emit('drop', {});
    expect(vi.getTimerCount()).toBe(3);

    guard.stop();

    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(PROBE_EVERY_MS * 10);
    server.emit('drop', {});
    expect(opens).toHaveBeenCalledTimes(1);
    expect(await exhaustions()).toEqual([{ code: 'EMFILE', source: 'descriptor probe', value: 1 }]);
    expect(guard.notReadyReason()).toBeUndefined();
    expect(logger.info).not.toHaveBeenCalled();
  });
});
