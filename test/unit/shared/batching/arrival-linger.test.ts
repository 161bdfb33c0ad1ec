import { describe, expect, it } from 'vitest';
import { arrivalLinger } from '#shared/batching/arrival-linger.ts';

function steadyArrivals(gapMs: number, count: number) {
  let now = 0;
  const linger = arrivalLinger({ maxMs: 5, wanted: 2, windowMs: 100 }, () => now);
  for (let index = 0; index < count; index++) {
    now += gapMs;
    linger.arrived();
  }
  return {
    linger,
    later: (ms: number) => {
      now += ms;
    },
  };
}

describe('arrivalLinger', () => {
  it('When calls arrive 1.4 ms apart (700/s), then a run waits about as long as two more take', () => {
    const { linger } = steadyArrivals(1.4, 1_000);

    expect(linger.waitMs()).toBeGreaterThan(2.6);
    expect(linger.waitMs()).toBeLessThan(3);
    expect(linger.enough).toBe(3);
  });

  it('When calls arrive 10 ms apart (100/s), then a run does not wait: two more would take past the longest wait', () => {
    const { linger } = steadyArrivals(10, 1_000);

    expect(linger.waitMs()).toBe(0);
  });

  it('When nothing arrived yet, then a run does not wait', () => {
    const { linger } = steadyArrivals(1, 0);

    expect(linger.waitMs()).toBe(0);
  });

  it('When a fast stream stops, then within a few windows a lone call no longer waits', () => {
    const { linger, later } = steadyArrivals(0.5, 1_000);
    expect(linger.waitMs()).toBeGreaterThan(0);

    later(300);
    linger.arrived();

    expect(linger.waitMs()).toBe(0);
  });

  it('When calls arrive faster than the longest wait needs, then the wait shrinks with the gap', () => {
    const fast = steadyArrivals(0.25, 2_000).linger.waitMs();
    const slower = steadyArrivals(2, 2_000).linger.waitMs();

    expect(fast).toBeGreaterThan(0.4);
    expect(fast).toBeLessThan(0.6);
    expect(slower).toBeGreaterThan(3.5);
    expect(slower).toBeLessThanOrEqual(5);
  });

  it('When calls arrive in groups, then a group counts as its calls one by one', () => {
    let now = 0;
    const grouped = arrivalLinger({ maxMs: 5, wanted: 2, windowMs: 100 }, () => now);
    for (let index = 0; index < 500; index++) {
      now += 4;
      grouped.arrived(4);
    }

    expect(grouped.waitMs()).toBeCloseTo(steadyArrivals(1, 2_000).linger.waitMs(), 1);
  });
});
