import { describe, expect, it } from 'vitest';
import { concurrencyLimit, createAdmission } from '#gateway/admission/concurrency-limit.ts';

/** A limit on a clock the test moves: at most 1,000, at least 20, from 100, aiming at 100 ms, crowded at half. */
function limitWith(options: Partial<Parameters<typeof concurrencyLimit>[0]> = {}) {
  let now = 0;
  const limit = concurrencyLimit({
    max: 1_000,
    min: 20,
    initial: 100,
    latencyTargetMs: 100,
    crowdedAt: 1_000,
    quietBelow: 1,
    ...options,
    now: () => now,
  });
  /** Admits `count` creates, lets `latencyMs` pass, and ends each with `answered`. */
  const wave = (count: number, latencyMs: number, answered = true) => {
    const leaves = Array.from({ length: count }, () => limit.enter());
    now += latencyMs;
    for (const leave of leaves) leave?.(answered);
  };
  const pass = (ms: number) => {
    now += ms;
  };
  /** One create at a time, each taking `latencyMs`, for three intervals and three creates at least: creates on a quiet path. */
  const learnPath = (latencyMs: number) => {
    for (let elapsed = 0; elapsed < Math.max(300, 3 * latencyMs); elapsed += latencyMs)
      wave(1, latencyMs);
  };
  return { limit, wave, pass, learnPath };
}

describe('concurrencyLimit', () => {
  it('When as many creates are in flight as the limit, then the next is not admitted until one leaves', () => {
    const { limit } = limitWith({ max: 100, min: 3, initial: 3 });

    const leaves = [limit.enter(), limit.enter(), limit.enter()];

    expect(limit.hasRoom()).toBe(false);
    expect(limit.enter()).toBeUndefined();
    leaves[0]?.(true);
    leaves[0]?.(true);
    expect(limit.inFlight).toBe(2);
    expect(limit.hasRoom()).toBe(true);
  });

  it('When creates are answered within the target while half the limit is in use, before any decrease, then each raises it by one, up to the maximum', () => {
    const { limit, wave } = limitWith({ max: 12, min: 4, initial: 10 });

    wave(10, 50);
    expect(limit.limit).toBe(12);
  });

  it('When fewer than half the limit are in flight, then neither fast nor unanswered creates change it', () => {
    const { limit, wave, learnPath } = limitWith({ min: 4, initial: 10 });
    learnPath(10);

    for (let round = 0; round < 20; round++) wave(4, 150, false);
    for (let round = 0; round < 20; round++) wave(4, 5);
    expect(limit.limit).toBe(10);
  });

  it('When creates meet a quiet path, then the path latency is the lowest over the last 5 to 10 s of the slower of each two consecutive, so that one shortcut does not set it', () => {
    const { limit, wave, pass, learnPath } = limitWith();
    expect(limit.pathLatencyMs).toBeUndefined();

    learnPath(10);
    expect(limit.pathLatencyMs).toBe(10);
    learnPath(30);
    expect(limit.pathLatencyMs).toBe(10);
    pass(10_000);
    learnPath(30);
    expect(limit.pathLatencyMs).toBe(30);
    for (const latencyMs of [30, 2, 30]) wave(1, latencyMs);
    expect(limit.pathLatencyMs).toBe(30);
  });

  it('When creates are admitted while quietBelow or more are in flight, then they teach the path latency nothing, however long they last; below it they do', () => {
    const busy = limitWith({ quietBelow: 3 });
    const quiet = limitWith({ quietBelow: 3 });
    const held = [busy.limit.enter(), busy.limit.enter(), busy.limit.enter(), quiet.limit.enter()];
    quiet.limit.enter();

    for (let round = 0; round < 200; round++) {
      busy.wave(1, 50);
      quiet.wave(1, 50);
    }
    expect([busy.limit.pathLatencyMs, quiet.limit.pathLatencyMs]).toEqual([undefined, 50]);
    expect(held).toHaveLength(4);
  });

  it('When even the fastest create of an interval took longer than the target (on a path shorter than half of it) while half the limit is in use, then it falls by the target over that latency, by a tenth at least and by half at most, not below the minimum', () => {
    const fallsTo = (latencyMs: number, min = 20) => {
      const { limit, wave, learnPath } = limitWith({ min });
      learnPath(10);
      wave(60, latencyMs);
      return limit.limit;
    };

    expect([fallsTo(105), fallsTo(125), fallsTo(1_000), fallsTo(1_000, 60)]).toEqual([
      90, 80, 50, 60,
    ]);
  });

  it('When the path is far and creates meet no queue but a batch under way (up to one path latency more), then a crowded limit never falls, and one cut earlier climbs back', () => {
    const { limit, wave, pass, learnPath } = limitWith();
    learnPath(10);
    wave(60, 260);
    expect(limit.limit).toBe(50);

    pass(10_000);
    learnPath(250);
    expect(limit.pathLatencyMs).toBe(250);
    for (let round = 0; round < 40; round++) wave(limit.limit, 260 + (round % 3) * 110);
    expect(limit.limit).toBeGreaterThan(50);
    for (let round = 0; round < 200; round++) wave(2, 260);
    expect(limit.limit).toBe(100);
  });

  it('When a queue stands on a far path, then the limit falls by twice the path latency (longer than the target) over the fastest latency', () => {
    const { limit, wave, learnPath } = limitWith();
    learnPath(250);

    wave(60, 600);
    expect(limit.limit).toBe(83);
  });

  it('When a flood stands from its first interval, then the crowded intervals do not teach the path latency and the limit keeps falling', () => {
    const { limit, wave, learnPath } = limitWith({ initial: 500 });
    learnPath(10);

    const limits: number[] = [];
    for (let round = 0; round < 4; round++) {
      wave(limit.limit, 300);
      limits.push(limit.limit);
    }
    expect(limit.pathLatencyMs).toBe(10);
    expect(limits).toEqual([250, 125, 62, 31]);
  });

  it('When a closed loop keeps the path busy from its first creates, then the path latency is what those first creates met, and the queue standing behind them is cut', () => {
    const { limit, pass } = limitWith({ quietBelow: 2 });
    const first = [limit.enter(), limit.enter()];
    let waiting = Array.from({ length: 58 }, () => limit.enter());
    pass(10);
    for (const leave of first) leave?.(true);

    for (let round = 0; round < 10; round++) {
      const next = Array.from({ length: 60 }, () => limit.enter());
      pass(300);
      for (const leave of waiting) leave?.(true);
      waiting = next;
    }
    expect(limit.pathLatencyMs).toBe(10);
    expect(limit.limit).toBeLessThan(40);
  });

  it('When the path itself grows while the limit is crowded, then the limit falls to its floor and stays there, even crowded at the floor; once the load lightens it learns the path and climbs back', () => {
    const { limit, wave, learnPath } = limitWith({ initial: 200 });
    learnPath(10);
    const leaveBusy = limit.enter();

    for (let round = 0; round < 26; round++) wave(limit.limit, 400);
    expect([limit.limit, limit.pathLatencyMs]).toEqual([20, 10]);
    leaveBusy?.(false);
    learnPath(400);
    expect(limit.pathLatencyMs).toBe(400);
    for (let round = 0; round < 20; round++) wave(limit.limit, 400);
    expect(limit.limit).toBeGreaterThan(20);
  });

  it('Before two creates have met a quiet path, then crowded slow creates count as in time (they raise the limit while half is used), and an interval with no answer halves it', () => {
    const slow = limitWith();
    const silent = limitWith();

    slow.wave(60, 1_000);
    silent.wave(60, 1_000, false);
    expect([slow.limit.limit, silent.limit.limit, slow.limit.pathLatencyMs]).toEqual([
      107,
      50,
      undefined,
    ]);
  });

  it('When fewer than half the limit but at least crowdedAt creates are in flight and even the fastest took longer than the target, then it falls; below crowdedAt it does not', () => {
    const crowded = limitWith({ initial: 500, crowdedAt: 60 });
    const uncrowded = limitWith({ initial: 500, crowdedAt: 61 });
    crowded.learnPath(10);
    uncrowded.learnPath(10);

    crowded.wave(60, 1_000);
    uncrowded.wave(60, 1_000);
    expect([crowded.limit.limit, uncrowded.limit.limit]).toEqual([250, 500]);
  });

  it('When no create of an interval was answered while half the limit is in use, then it halves', () => {
    const { limit, wave, learnPath } = limitWith();
    learnPath(10);

    wave(60, 100, false);
    expect(limit.limit).toBe(50);
  });

  it('When slow creates come in a burst with a fast one in the same interval, then there is no standing queue and the limit does not fall', () => {
    const { limit, pass, learnPath } = limitWith();
    learnPath(10);
    const leaves = Array.from({ length: 60 }, () => limit.enter());

    pass(10);
    leaves[0]?.(true);
    pass(290);
    for (const leave of leaves.slice(1)) leave?.(true);
    expect(limit.limit).toBe(101);
  });

  it('When creates are answered in time after a decrease, then the limit grows by one per limit of them', () => {
    const { limit, wave, learnPath } = limitWith();
    learnPath(10);
    wave(60, 105);
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

  it('When the limit is mostly unused and creates meet no queue, then it returns to where it started by a tenth, a second at least after its last move', () => {
    const { limit, wave, learnPath } = limitWith();
    learnPath(10);
    wave(60, 105);
    wave(50, 105);
    const limits = [limit.limit];

    for (let second = 0; second < 3; second++) {
      for (let interval = 0; interval < 9; interval++) wave(2, 100);
      limits.push(limit.limit);
      wave(2, 100);
      limits.push(limit.limit);
    }
    expect(limits).toEqual([81, 81, 89, 89, 98, 98, 100]);
  });

  it('When the target is 0, then the limit stays at the maximum whatever the latency', () => {
    const { limit, wave } = limitWith({ max: 7, min: 2, initial: 3, latencyTargetMs: 0 });

    wave(7, 10_000, false);
    expect(limit.limit).toBe(7);
  });

  it('createAdmission: the limit starts at 1,000, never above MAX_IN_FLIGHT', () => {
    expect(createAdmission({ maxInFlight: 2, createLatencyTargetMs: 25 }).limit).toBe(2);
    expect(createAdmission({ maxInFlight: 10_000, createLatencyTargetMs: 25 }).limit).toBe(1_000);
    expect(createAdmission({ maxInFlight: 10_000, createLatencyTargetMs: 0 }).limit).toBe(10_000);
  });
});
