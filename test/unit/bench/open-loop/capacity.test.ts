import { describe, expect, it } from 'vitest';
import { searchCapacity } from '#bench/open-loop/capacity.ts';
import { heldTarget, rateStep, type RateStep } from '#bench/open-loop/rate-step.ts';
import type { Hit } from '#local/load/vegeta-results.ts';

const START_NS = 1_764_000_000_000_000_000n;
const MEASURED = { generatorCpuSeconds: 0.5, machineBusyPercent: 40, usage: [] };

/** `count` hits at `rate`, each sent `lagMs(seq)` late and answered `code` after `latencyMs`. */
function hits(
  rate: number,
  count: number,
  {
    lagMs = () => 0,
    latencyMs = () => 2,
    code = () => 201,
  }: Partial<Record<'lagMs' | 'latencyMs' | 'code', (seq: number) => number>> = {},
): Hit[] {
  return Array.from({ length: count }, (_, seq) => ({
    seq,
    sentNs: START_NS + BigInt(Math.round(((seq * 1_000) / rate + lagMs(seq)) * 1e6)),
    latencyMs: latencyMs(seq),
    code: code(seq),
    error: '',
  }));
}

describe('an open-loop step', () => {
  it('When requests leave on schedule, then latency is their answer time and the step is on schedule', () => {
    const step = rateStep(100, 2, hits(100, 200), MEASURED);

    expect(step).toMatchObject({ offered: 100, sent: 200, achieved: 100, behindSchedule: false });
    expect([step.p50, step.p99, step.max, step.errors]).toEqual([2, 2, 2, 0]);
    expect(step.perSecond.map(({ sent, ok }) => [sent, ok])).toEqual([
      [100, 100],
      [100, 100],
    ]);
  });

  it('When the generator sent requests late, then the wait counts in their latency and the step is flagged', () => {
    // Requests 100 to 149 leave 40 ms late: a client arriving on time would have waited too.
    const step = rateStep(
      100,
      2,
      hits(100, 200, { lagMs: (seq) => (seq >= 100 && seq < 150 ? 40 : 0) }),
      MEASURED,
    );

    expect(step.max).toBe(42);
    expect(step.p99).toBe(42);
    expect(step.p50).toBe(2);
    expect(step.sendLagP99).toBe(40);
    expect(step.behindSchedule).toBe(true);
    expect(heldTarget(step, 50)).toBe(false);
  });

  it('When fewer requests went out than the rate asks, then the step is behind schedule', () => {
    expect(rateStep(100, 2, hits(100, 190), MEASURED).behindSchedule).toBe(true);
  });

  it('When some answers are 503, 504 or none, then they are errors by kind and the target is missed', () => {
    const codes = [503, 504, 0];
    const step = rateStep(
      100,
      1,
      hits(100, 100, { code: (seq) => (seq < 3 ? (codes[seq] ?? 201) : 201) }),
      MEASURED,
    );

    expect(step.errors).toBe(3);
    expect(step.errorKinds).toEqual({ '503': 1, '504': 1, 'no answer': 1 });
    expect(step.perSecond[0]).toMatchObject({ sent: 100, ok: 97, failed: 3 });
    expect(heldTarget(step, 50)).toBe(false);
  });
});

describe('the capacity search', () => {
  /** A service that holds p99 ≤ 50 ms up to `limit` requests a second. */
  const service = (limit: number) => {
    const asked: number[] = [];
    const measureAt = (rate: number): Promise<RateStep> => {
      asked.push(rate);
      const over = rate > limit;
      return Promise.resolve(
        rateStep(rate, 1, hits(rate, rate, { latencyMs: () => (over ? 80 : 5) }), MEASURED),
      );
    };
    return { asked, measureAt };
  };

  it('When the service holds the target at the start, then it doubles, then narrows to within 10 %', async () => {
    const { asked, measureAt } = service(1_730);
    const capacity = await searchCapacity(measureAt, { targetMs: 50, startRate: 400 });

    expect(asked.slice(0, 4)).toEqual([400, 800, 1_600, 3_200]);
    expect(capacity.rate).not.toBeNull();
    expect(capacity.rate).toBeLessThanOrEqual(1_730);
    expect(capacity.rate).toBeGreaterThan(1_730 * 0.9);
    expect(capacity.steps).toHaveLength(asked.length);
  });

  it('When the service misses the target at the start, then it halves until a rate holds', async () => {
    const { asked, measureAt } = service(130);
    const capacity = await searchCapacity(measureAt, { targetMs: 50, startRate: 1_000 });

    expect(asked.slice(0, 4)).toEqual([1_000, 500, 250, 130]);
    expect(capacity.rate).toBeLessThanOrEqual(130);
    expect(capacity.rate).toBeGreaterThan(130 * 0.9);
  });

  it('When no rate down to 10 a second holds, then there is no capacity', async () => {
    const { measureAt } = service(0);
    const capacity = await searchCapacity(measureAt, { targetMs: 50, startRate: 100 });

    expect(capacity.rate).toBeNull();
    expect(capacity.steps.map(({ offered }) => offered)).toEqual([100, 50, 25, 13]);
  });
});
