import { openSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  QUIET_MS,
  PROBE_EVERY_MS,
  CAP_REASON,
  exhausted,
  guardedIdleServer,
} from '#test/support/servers/guarded-server.ts';

// The probe opens /dev/null with openSync; the ESM namespace of node:fs cannot be spied on, so the
// module is mocked with the real functions, openSync wrapped so that a test can make it fail.
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return { ...fs, openSync: vi.fn(fs.openSync) };
});
const opens = vi.mocked(openSync);

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
