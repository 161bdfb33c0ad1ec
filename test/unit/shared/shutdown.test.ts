import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '#shared/logger.ts';
import { exitOnSignalOrFault } from '#shared/shutdown.ts';

const TIMEOUT_MS = 25_000;

/**
 * A service whose stop finishes only when the test says so, on a stand-in for `process`: the
 * test emits signals and faults on it, and reads the exit status it was asked for.
 */
function aStoppingService() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('service', 'info', {
    write: (line: string) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const events = new EventEmitter();
  const statuses: number[] = [];
  let exited: (status: number) => void = () => {};
  const firstExit = new Promise<number>((resolve) => (exited = resolve));
  const stops: { finish: () => void; fail: (error: Error) => void }[] = [];
  exitOnSignalOrFault(
    {
      logger,
      stopping: 'stopping: finishing the work in hand',
      stop: () =>
        new Promise<void>((resolve, reject) => {
          stops.push({ finish: resolve, fail: reject });
        }),
      timeoutMs: TIMEOUT_MS,
    },
    {
      on: (event, listener) => events.on(event, listener),
      removeListener: (event, listener) => events.removeListener(event, listener),
      exit: (status) => {
        statuses.push(status);
        exited(status);
      },
    },
  );
  return {
    emit: (event: string, cause: unknown) => events.emit(event, cause),
    lines,
    stops,
    statuses,
    firstExit,
    messages: () => lines.map(({ msg }) => msg),
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('A service’s last resort on an uncaught exception or unhandled rejection', () => {
  it.each([
    ['uncaughtException', 'uncaught exception'],
    ['unhandledRejection', 'unhandled rejection'],
  ])(
    'When an %s reaches the process, then it logs it as fatal under err, stops once and exits 1 after the stop',
    async (event, words) => {
      const service = aStoppingService();

      service.emit(event, new Error('boom'));

      expect(service.lines).toEqual([
        expect.objectContaining({
          level: 60,
          name: 'service',
          msg: `${words}: stopping the service, then exiting with status 1`,
          err: expect.objectContaining({ type: 'Error', message: 'boom' }) as unknown,
        }),
        expect.objectContaining({ level: 30, msg: 'stopping: finishing the work in hand' }),
      ]);
      expect(service.stops).toHaveLength(1);
      expect(service.statuses).toEqual([]);

      service.stops[0]?.finish();

      expect(await service.firstExit).toBe(1);
    },
  );

  it('When the rejection’s reason is not an Error, then the line carries it as it is', async () => {
    const service = aStoppingService();

    service.emit('unhandledRejection', 'no broker available');
    service.stops[0]?.finish();

    expect(await service.firstExit).toBe(1);
    expect(service.lines[0]).toMatchObject({ level: 60, err: 'no broker available' });
  });

  it('When the stop outlasts the timeout, then it exits 1, saying so', async () => {
    const service = aStoppingService();
    service.emit('uncaughtException', new Error('boom'));

    await vi.advanceTimersByTimeAsync(TIMEOUT_MS);

    expect(await service.firstExit).toBe(1);
    expect(service.lines.at(-1)).toMatchObject({
      level: 50,
      msg: 'the stop took longer than SHUTDOWN_TIMEOUT_MS: exiting',
      timeoutMs: TIMEOUT_MS,
    });
  });

  it('When the stop fails, then it exits 1 with the stop’s error', async () => {
    const service = aStoppingService();
    service.emit('uncaughtException', new Error('boom'));

    service.stops[0]?.fail(new Error('store close failed'));

    expect(await service.firstExit).toBe(1);
    expect(service.lines.at(-1)).toMatchObject({
      level: 50,
      msg: 'shutdown failed',
      err: { message: 'store close failed' },
    });
  });

  it('When a second fault arrives while it stops, then it exits 1 at once, logging that fault, without stopping again', async () => {
    const service = aStoppingService();
    service.emit('uncaughtException', new Error('first'));

    service.emit('unhandledRejection', new Error('second'));

    expect(await service.firstExit).toBe(1);
    expect(service.stops).toHaveLength(1);
    expect(service.lines.at(-1)).toMatchObject({
      level: 60,
      msg: 'unhandled rejection while stopping: exiting before the stop finished',
      err: { message: 'second' },
    });
  });

  it('When a signal arrives while a fault stops it, then it exits 1 at once, saying why', async () => {
    const service = aStoppingService();
    service.emit('unhandledRejection', new Error('boom'));

    service.emit('SIGTERM', 'SIGTERM');

    expect(await service.firstExit).toBe(1);
    expect(service.stops).toHaveLength(1);
    expect(service.messages().at(-1)).toBe('second signal: exiting before the stop finished');
  });

  it('When a fault arrives while a signal stops it, then it exits 1 at once, logging the fault', async () => {
    const service = aStoppingService();
    service.emit('SIGTERM', 'SIGTERM');

    service.emit('uncaughtException', new Error('during the stop'));

    expect(await service.firstExit).toBe(1);
    expect(service.stops).toHaveLength(1);
    expect(service.lines.at(-1)).toMatchObject({
      level: 60,
      msg: 'uncaught exception while stopping: exiting before the stop finished',
      err: { message: 'during the stop' },
    });
  });

  it('When a signal’s stop finishes, then it still exits 0', async () => {
    const service = aStoppingService();
    service.emit('SIGINT', 'SIGINT');

    service.stops[0]?.finish();

    expect(await service.firstExit).toBe(0);
    expect(service.lines).toEqual([
      expect.objectContaining({
        level: 30,
        signal: 'SIGINT',
        msg: 'stopping: finishing the work in hand',
      }),
    ]);
  });
});
