import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { awayFromStore, LEAVE_AFTER_SILENT_MS } from '#writer/lanes/away-from-store.ts';
import { createLogger } from '#shared/logger.ts';

const silent = createLogger('writer', 'silent');

/** A writer owning partitions 0 and 1 of four, whose store and peers the test sets. */
function writerSeeing() {
  const world = {
    silentForMs: 0,
    refusal: undefined as { forMs: number; message: string } | undefined,
    probeAnswers: false,
    /** Committed offsets of partitions 2 and 3, the others' partitions. */
    peerOffset: 10,
    peersCommit: true,
    owned: [0, 1] as readonly number[],
  };
  const leave = vi.fn(() => {
    world.owned = [];
    return Promise.resolve();
  });
  const rejoin = vi.fn(() => {
    world.owned = [0, 1];
    return Promise.resolve();
  });
  const away = awayFromStore({
    reach: {
      silentForMs: () => world.silentForMs,
      refusal: () => world.refusal,
      probe: () => Promise.resolve(world.probeAnswers),
    },
    committed: () => {
      if (world.peersCommit) world.peerOffset += 5;
      return Promise.resolve(
        new Map([
          [0, '3'],
          [1, '3'],
          [2, String(world.peerOffset)],
          [3, String(world.peerOffset)],
        ]),
      );
    },
    owned: () => world.owned,
    leave,
    rejoin,
    logger: silent,
  });
  /** Advances the clock second by second, the store silent all along. */
  const silentFor = async (ms: number) => {
    for (let elapsed = 0; elapsed < ms; elapsed += 1_000) {
      world.silentForMs += 1_000;
      await vi.advanceTimersByTimeAsync(1_000);
    }
  };
  return { world, away, leave, rejoin, silentFor };
}

describe('A writer whose store does not answer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('When the others commit only in bursts 5 s apart while it has no answer, then it still gives its partitions up', async () => {
    const { world, away, leave, silentFor } = writerSeeing();
    for (let second = 0; second < 12; second++) {
      world.peersCommit = second % 5 === 0;
      await silentFor(1_000);
    }

    expect(leave).toHaveBeenCalledTimes(1);
    away.stop();
  });

  it('When it has no answer while the others commit, then it gives its partitions up after the silence and says why', async () => {
    const { away, leave, silentFor } = writerSeeing();

    await silentFor(LEAVE_AFTER_SILENT_MS - 1_000);
    expect(leave).not.toHaveBeenCalled();
    expect(away.notReadyReason()).toBe('the store has not answered for 8 s');
    await silentFor(2_000);

    expect(leave).toHaveBeenCalledTimes(1);
    expect(away.notReadyReason()).toMatch(/does not answer this writer while the others store/);
    away.stop();
  });

  it('When nobody commits (the store is down for all), then it keeps its partitions and says the store is silent', async () => {
    const { world, away, leave, silentFor } = writerSeeing();
    world.peersCommit = false;

    await silentFor(30_000);

    expect(leave).not.toHaveBeenCalled();
    expect(away.notReadyReason()).toBe('the store has not answered for 30 s');
    away.stop();
  });

  it('When the store has refused its inserts for 5 s (a full disk), then it says the store refuses writes, with the error, and keeps its partitions', async () => {
    const { world, away, leave } = writerSeeing();
    const message = 'could not extend file "base/16384/16400": No space left on device';
    world.refusal = { forMs: 4_000, message };
    await vi.advanceTimersByTimeAsync(1_000);
    expect(away.notReadyReason()).toBeUndefined();

    world.refusal = { forMs: 30_000, message };
    await vi.advanceTimersByTimeAsync(30_000);

    expect(away.notReadyReason()).toBe(`the store refuses writes: ${message}`);
    expect(leave).not.toHaveBeenCalled();
    away.stop();
  });

  it('When its operations are answered every 7 s and the others commit meanwhile (a store slow for all), then it stays', async () => {
    const { world, away, leave, silentFor } = writerSeeing();
    for (let round = 0; round < 5; round++) {
      await silentFor(7_000);
      world.silentForMs = 0;
    }

    expect(leave).not.toHaveBeenCalled();
    away.stop();
  });

  it('When it is away and the store answers a probe again, then it rejoins and is ready again', async () => {
    const { world, away, rejoin, silentFor } = writerSeeing();
    await silentFor(LEAVE_AFTER_SILENT_MS + 2_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(rejoin).not.toHaveBeenCalled();

    world.probeAnswers = true;
    world.silentForMs = 0;
    await vi.advanceTimersByTimeAsync(1_000);

    expect(rejoin).toHaveBeenCalledTimes(1);
    expect(away.notReadyReason()).toBeUndefined();
    away.stop();
  });

  it('When rejoining fails, then it stays away and tries again at the next probe', async () => {
    const { world, away, rejoin, silentFor } = writerSeeing();
    await silentFor(LEAVE_AFTER_SILENT_MS + 2_000);
    world.probeAnswers = true;
    world.silentForMs = 0;
    rejoin.mockRejectedValueOnce(new Error('The group is rebalancing'));

    await vi.advanceTimersByTimeAsync(1_000);
    expect(away.notReadyReason()).toMatch(/partitions are given up/);
    await vi.advanceTimersByTimeAsync(1_000);

    expect(rejoin).toHaveBeenCalledTimes(2);
    expect(away.notReadyReason()).toBeUndefined();
    away.stop();
  });
});
