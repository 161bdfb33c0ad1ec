import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { restartAfterCrashes } from '#writer/kafka/consumer-restarts.ts';
import { createLogger } from '#shared/logger.ts';
import { fakeConsumer } from '#test/support/clients/fake-consumer.ts';

const silent = createLogger('writer', 'silent');

/** Crashes the consumer, lets its restart begin, and stops the restarts meanwhile. */
async function stopDuringRestart(
  consumer: ReturnType<typeof fakeConsumer>['consumer'],
  crash: (restart: boolean) => void,
  start: () => Promise<void>,
) {
  const restarts = restartAfterCrashes(consumer, start, silent);
  crash(false);
  await vi.advanceTimersByTimeAsync(1_000);
  let stopped = false;
  const done = restarts.stop().then(() => {
    stopped = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return { done, stopped: () => stopped };
}

describe('Restarts of a consumer kafkajs gave up on', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('When crashes without a restart follow each other, then it is started again 1, 2, 4 … s later, at most 30 s, and a join starts over from 1 s', async () => {
    const { consumer, connect, crash, join } = fakeConsumer();
    const start = vi.fn(() => Promise.resolve());
    restartAfterCrashes(consumer, start, silent);
    const startedAfter = async (ms: number) => {
      const before = start.mock.calls.length;
      await vi.advanceTimersByTimeAsync(ms - 1);
      const early = start.mock.calls.length - before;
      await vi.advanceTimersByTimeAsync(1);
      return { early, onTime: start.mock.calls.length - before };
    };

    for (const ms of [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]) {
      crash(false);
      expect(await startedAfter(ms)).toEqual({ early: 0, onTime: 1 });
    }
    join();
    crash(false);

    expect(await startedAfter(1_000)).toEqual({ early: 0, onTime: 1 });
    expect(connect).toHaveBeenCalledTimes(8);
  });

  it('When kafkajs restarts the consumer itself, then nothing more is started', async () => {
    const { consumer, crash } = fakeConsumer();
    const start = vi.fn(() => Promise.resolve());
    restartAfterCrashes(consumer, start, silent);

    crash(true);
    await vi.advanceTimersByTimeAsync(60_000);

    expect(start).not.toHaveBeenCalled();
  });

  it('When the broker cannot be reached for a restart, then it is tried again, later each time', async () => {
    const { consumer, connect, crash } = fakeConsumer();
    connect
      .mockRejectedValueOnce(new Error('Connection error'))
      .mockRejectedValueOnce(new Error('Connection error'));
    const start = vi.fn(() => Promise.resolve());
    restartAfterCrashes(consumer, start, silent);

    crash(false);
    await vi.advanceTimersByTimeAsync(1_000 + 2_000 + 4_000 - 1);
    expect(start).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);

    expect(connect).toHaveBeenCalledTimes(3);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it('When the writer stops, then no restart is started and stop waits for the one under way', async () => {
    const { consumer, crash } = fakeConsumer();
    let finishStart = () => {};
    const start = vi.fn(() => new Promise<void>((resolve) => (finishStart = resolve)));
    const stopping = await stopDuringRestart(consumer, crash, start);
    expect(stopping.stopped()).toBe(false);
    finishStart();
    await stopping.done;
    crash(false);
    await vi.advanceTimersByTimeAsync(60_000);

    expect(start).toHaveBeenCalledTimes(1);
  });

  it('When the writer stops while a restart is still connecting, then stop does not wait for it, and the attempt disconnects instead of starting', async () => {
    const { consumer, connect, disconnect, crash } = fakeConsumer();
    let connected = () => {};
    connect.mockImplementationOnce(() => new Promise<void>((resolve) => (connected = resolve)));
    const start = vi.fn(() => Promise.resolve());
    const stopping = await stopDuringRestart(consumer, crash, start);
    expect(stopping.stopped()).toBe(true);
    connected();
    await stopping.done;
    await vi.advanceTimersByTimeAsync(0);

    expect(start).not.toHaveBeenCalled();
    expect(disconnect).toHaveBeenCalledTimes(1);
  });
});
