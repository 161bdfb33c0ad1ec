import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { coalescer } from '#shared/batching/coalescer.ts';

function controllableSend() {
  const batches: number[][] = [];
  const releases: ((error?: Error) => void)[] = [];
  const sendAll = (items: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push(items);
      releases.push((error) => {
        if (error) reject(error);
        else resolve(items.map((item) => item * 10));
      });
    });
  return { batches, releases, sendAll };
}

describe('Coalescer', () => {
  it('When idle, then a call is sent at once; calls made during a send go out together next', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll);

    const first = send(1);
    expect(batches).toEqual([[1]]);
    const queued = [send(2), send(3), send(4)];
    expect(batches).toEqual([[1]]);
    releases[0]?.();
    await first;
    await Promise.resolve();

    expect(batches).toEqual([[1], [2, 3, 4]]);
    releases[1]?.();
    await Promise.all(queued);
  });

  it('When a send fails, then only the calls it carried fail', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll);

    const first = send(1);
    const second = send(2);
    releases[0]?.(new Error('broker down'));
    await expect(first).rejects.toThrow('broker down');
    await Promise.resolve();
    releases[1]?.();

    await expect(second).resolves.toBe(20);
    expect(batches).toEqual([[1], [2]]);
  });

  it('When more calls queue than a batch may hold, then they are split', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { maxBatchSize: 2 });

    const calls = [send(1), send(2), send(3), send(4), send(5)];
    for (let index = 0; index < 3; index++) {
      releases[index]?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(calls);

    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('When calls are sized, then a batch holds as many as maxBatchSize counts by their size, and one larger than it alone', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { maxBatchSize: 10, sizeOf: (item) => item });

    const calls = [send(1), send(4), send(5), send(2), send(12), send(3)];
    for (let index = 0; index < 5; index++) {
      releases[index]?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(calls);

    expect(batches).toEqual([[1], [4, 5], [2], [12], [3]]);
  });

  it('When calls go out together, then each settles with its own result', async () => {
    const { releases, sendAll } = controllableSend();
    const send = coalescer(sendAll);

    const first = send(1);
    const together = [send(2), send(3)];
    releases[0]?.();
    await first;
    await Promise.resolve();
    releases[1]?.();

    await expect(Promise.all([first, ...together])).resolves.toEqual([10, 20, 30]);
  });

  it('When a run is slow and another may be in flight, then the next call runs beside it, and calls queue once every run is busy', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { concurrency: 2 });

    const slow = send(1);
    const beside = send(2);
    expect(batches).toEqual([[1], [2]]);
    const queued = [send(3), send(4)];
    expect(batches).toEqual([[1], [2]]);
    releases[1]?.();
    await expect(beside).resolves.toBe(20);
    await Promise.resolve();

    expect(batches).toEqual([[1], [2], [3, 4]]);
    releases[2]?.();
    await expect(Promise.all(queued)).resolves.toEqual([30, 40]);
    releases[0]?.();
    await expect(slow).resolves.toBe(10);
  });

  it('When gathering, then the calls of one turn of the event loop go out together, after it', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { gather: true, concurrency: 2 });
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    // Two callbacks of one turn, as two sockets' data would be: a microtask would split them.
    const sameTurn = await new Promise<Promise<number>[]>((resolve) => {
      const calls: Promise<number>[] = [];
      setImmediate(() => calls.push(send(1)));
      setImmediate(() => {
        calls.push(send(2));
        resolve(calls);
      });
    });
    expect(batches).toEqual([]);
    await turn();

    expect(batches).toEqual([[1, 2]]);
    const nextTurn = send(3);
    expect(batches).toEqual([[1, 2]]);
    await turn();
    expect(batches).toEqual([[1, 2], [3]]);
    releases.forEach((release) => {
      release();
    });
    await expect(Promise.all([...sameTurn, nextTurn])).resolves.toEqual([10, 20, 30]);
  });

  it('When a run ends while calls gather, then it takes them and no empty run follows', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { gather: true, concurrency: 2 });
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    const first = send(1);
    await turn();
    const gathered = send(2);
    releases[0]?.();
    await first;
    await Promise.resolve();
    expect(batches).toEqual([[1], [2]]);
    await turn();

    expect(batches).toEqual([[1], [2]]);
    releases[1]?.();
    await expect(gathered).resolves.toBe(20);
  });

  it('When a gathered run fails, then every call it carried fails with its error', async () => {
    const { releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { gather: true });

    const calls = [send(1), send(2)].map((call) => call.catch((error: unknown) => error));
    await new Promise((resolve) => setImmediate(resolve));
    releases[0]?.(new Error('broker down'));

    expect(await Promise.all(calls)).toEqual([new Error('broker down'), new Error('broker down')]);
  });

  it('When gathering and every run is busy, then calls wait for a run to end, not for a turn', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { gather: true });

    const first = send(1);
    await new Promise((resolve) => setImmediate(resolve));
    const queued = [send(2), send(3)];
    releases[0]?.();
    await first;
    await Promise.resolve();

    expect(batches).toEqual([[1], [2, 3]]);
    releases[1]?.();
    await expect(Promise.all(queued)).resolves.toEqual([20, 30]);
  });

  it('When a run answers fewer results than items, then the unanswered calls fail', async () => {
    const send = coalescer<number, number>(() => Promise.resolve([]));

    await expect(send(1)).rejects.toThrow('coalesced run answered 0 of 1');
  });

  it('When every run has been in flight for overlapAfterMs, then the calls queued meanwhile go out beside them, and that run ends with its calls', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { overlapAfterMs: 100 });

    const slow = send(1);
    const beside = [send(2), send(3)];
    vi.advanceTimersByTime(99);
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([[1], [2, 3]]);
    const queued = send(4);
    releases[1]?.();
    await expect(Promise.all(beside)).resolves.toEqual([20, 30]);
    expect(batches).toEqual([[1], [2, 3]]);
    releases[0]?.();
    await expect(slow).resolves.toBe(10);
    await Promise.resolve();

    expect(batches).toEqual([[1], [2, 3], [4]]);
    releases[2]?.();
    await expect(queued).resolves.toBe(40);
  });

  it('When maxInFlight runs are in flight, then no more goes out beside them however long they take, and one goes out once a run ends', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { batches, releases, sendAll } = controllableSend();
    const send = coalescer(sendAll, { overlapAfterMs: 100, maxInFlight: 2 });

    const slow = send(1);
    const beside = send(2);
    vi.advanceTimersByTime(100);
    const waiting = send(3);
    vi.advanceTimersByTime(1_000);
    expect(batches).toEqual([[1], [2]]);
    releases[1]?.();
    await expect(beside).resolves.toBe(20);
    vi.advanceTimersByTime(100);

    expect(batches).toEqual([[1], [2], [3]]);
    releases[0]?.();
    releases[2]?.();
    await expect(Promise.all([slow, waiting])).resolves.toEqual([10, 30]);
  });

  it('When overlapAfterMs is a function, then it is asked each time calls wait for a busy run', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { batches, sendAll } = controllableSend();
    let overlapMs = 100;
    const send = coalescer(sendAll, { overlapAfterMs: () => overlapMs });

    void send(1);
    overlapMs = 5;
    void send(2);
    vi.advanceTimersByTime(4);
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([[1], [2]]);
  });

  describe('with a linger', () => {
    const lingerOf = (waitMs: number) => ({
      arrived: vi.fn(),
      waitMs: () => waitMs,
      enough: 3,
    });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    /** Fake timeouts, real `setImmediate`: a turn of the event loop still ends. */
    const fakeTimeouts = () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      onTestFinished(() => {
        vi.useRealTimers();
      });
    };

    it('When the linger says 3 ms, then a call waits 3 ms and the calls made meanwhile go out with it', async () => {
      fakeTimeouts();
      const { batches, releases, sendAll } = controllableSend();
      const linger = lingerOf(3);
      const send = coalescer(sendAll, { gather: linger });

      const calls = [send(1)];
      vi.advanceTimersByTime(2);
      calls.push(send(2));
      await turn();
      expect(batches).toEqual([]);
      vi.advanceTimersByTime(1);

      expect(batches).toEqual([[1, 2]]);
      expect(linger.arrived).toHaveBeenCalledTimes(2);
      releases[0]?.();
      await expect(Promise.all(calls)).resolves.toEqual([10, 20]);
    });

    it('When a lingering run holds enough calls, then it goes out at the end of the turn', async () => {
      fakeTimeouts();
      const { batches, releases, sendAll } = controllableSend();
      const send = coalescer(sendAll, { gather: lingerOf(50) });

      const calls = [send(1), send(2), send(3), send(4)];
      expect(batches).toEqual([]);
      await turn();

      expect(batches).toEqual([[1, 2, 3, 4]]);
      releases[0]?.();
      await expect(Promise.all(calls)).resolves.toEqual([10, 20, 30, 40]);
      vi.advanceTimersByTime(50);
      expect(batches).toHaveLength(1);
    });

    it('When the linger says 0, then a call goes out at the end of the turn', async () => {
      const { batches, releases, sendAll } = controllableSend();
      const send = coalescer(sendAll, { gather: lingerOf(0) });

      const call = send(1);
      expect(batches).toEqual([]);
      await turn();

      expect(batches).toEqual([[1]]);
      releases[0]?.();
      await expect(call).resolves.toBe(10);
    });

    it('When calls arrive while a run is in flight, then they go out as it ends, without lingering', async () => {
      fakeTimeouts();
      const { batches, releases, sendAll } = controllableSend();
      const send = coalescer(sendAll, { gather: lingerOf(3) });
      const first = send(1);
      vi.advanceTimersByTime(3);
      expect(batches).toEqual([[1]]);

      const queued = send(2);
      releases[0]?.();
      await first;
      await Promise.resolve();

      expect(batches).toEqual([[1], [2]]);
      releases[1]?.();
      await expect(queued).resolves.toBe(20);
    });
  });
});
