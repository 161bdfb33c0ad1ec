import { describe, expect, it } from 'vitest';
import { concurrencyLimit, createAdmission } from '#gateway/admission/concurrency-limit.ts';

/** A limit on a clock the test moves: at most 1,000, at least 20, from 100, aiming at 100 ms. */
function limitWith(options: Partial<Parameters<typeof concurrencyLimit>[0]> = {}) {
  let now = 0;
  const limit = concurrencyLimit({
    max: 1_000,
    min: 20,
    initial: 100,
    latencyTargetMs: 100,
    ...options,
    now: () => now,
  });
  /** Admits `count` creates, lets `latencyMs` pass, and ends each with `answered`. */
  const completeAll = (count: number, latencyMs: number, answered = true) => {
    const leaves = Array.from({ length: count }, () => limit.enter());
    now += latencyMs;
    for (const leave of leaves) leave?.(answered);
  };
  return { limit, completeAll };
}

describe('concurrencyLimit', () => {
  it('When as many creates are in flight as the limit, then the next is not admitted until one leaves', () => {
    const { limit } = limitWith({ max: 100, min: 3, initial: 3, latencyTargetMs: 100 });

    const leaves = [limit.enter(), limit.enter(), limit.enter()];

    expect(limit.hasRoom()).toBe(false);
    expect(limit.enter()).toBeUndefined();
    leaves[0]?.(true);
    leaves[0]?.(true);
    expect(limit.inFlight).toBe(2);
    expect(limit.hasRoom()).toBe(true);
  });

  it('When creates come back within the target while the limit is mostly used, before any decrease, then it grows by one each, up to the maximum', () => {
    const { limit, completeAll } = limitWith({ max: 12, min: 4, initial: 10 });

    completeAll(10, 50);
    expect(limit.limit).toBe(12);
  });

  it('When few creates are in flight, then fast answers do not grow the limit', () => {
    const { limit, completeAll } = limitWith({ min: 4, initial: 10 });

    for (let round = 0; round < 50; round++) completeAll(2, 5);
    expect(limit.limit).toBe(10);
  });

  it('When creates are slower than the target or unanswered, then each multiplies the limit by 0.9, down to the minimum', () => {
    const { limit, completeAll } = limitWith();

    completeAll(1, 150);
    expect(limit.limit).toBe(90);
    completeAll(1, 10, false);
    expect(limit.limit).toBe(81);
    for (let round = 0; round < 50; round++) completeAll(1, 150);
    expect(limit.limit).toBe(20);
  });

  it('When creates admitted before a decrease come back late too, then they do not lower the limit again', () => {
    const { limit, completeAll } = limitWith();

    completeAll(30, 150, false);
    expect(limit.limit).toBe(90);
  });

  it('When creates come back within the target after a decrease, then the limit grows by one per limit of them', () => {
    const { limit, completeAll } = limitWith();
    completeAll(1, 150);
    // The limit kept full: each create that leaves makes room for the next.
    const inFlight = Array.from({ length: 90 }, () => limit.enter());

    for (let create = 0; create < 90; create++) {
      inFlight.shift()?.(true);
      inFlight.push(limit.enter());
    }
    expect(limit.limit).toBe(90);
    for (let create = 0; create < 10; create++) {
      inFlight.shift()?.(true);
      inFlight.push(limit.enter());
    }
    expect(limit.limit).toBe(91);
  });

  it('When the target is 0, then the limit stays at the maximum whatever the latency', () => {
    const { limit, completeAll } = limitWith({ max: 7, min: 2, initial: 3, latencyTargetMs: 0 });

    completeAll(7, 10_000, false);
    expect(limit.limit).toBe(7);
  });

  it('createAdmission: the minimum and the start never exceed MAX_IN_FLIGHT', () => {
    expect(createAdmission({ maxInFlight: 2, createLatencyTargetMs: 100 }).limit).toBe(2);
    expect(createAdmission({ maxInFlight: 10_000, createLatencyTargetMs: 100 }).limit).toBe(64);
    expect(createAdmission({ maxInFlight: 10_000, createLatencyTargetMs: 0 }).limit).toBe(10_000);
  });
});
