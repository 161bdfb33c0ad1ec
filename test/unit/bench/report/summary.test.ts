import { describe, expect, it } from 'vitest';
import type { LoadResult } from '#bench/closed-loop/load.ts';
import type { VariantResult } from '#bench/report/results.ts';
import { figuresOf, summarize, targetsOf } from '#bench/report/summary.ts';

const load = (requestsPerSecond: number, p99: number, failed = 0): LoadResult => ({
  requestsPerSecond,
  p50: p99 / 2,
  p90: p99,
  p99,
  requests: requestsPerSecond * 20,
  non2xx: failed,
  errors: 0,
});

const run = (
  variant: string,
  round: number,
  requestsPerSecond: number,
  { p99 = 40, sequential = 2, cpuSeconds = [1, 1] as number[] } = {},
): VariantResult => ({
  variant,
  round,
  load: load(requestsPerSecond, p99),
  sequential: { ...load(500, sequential * 3), p50: sequential },
  usage: cpuSeconds.map((seconds, index) => ({
    name: `process-${String(index)}`,
    maxRssMiB: 100,
    cpuSeconds: seconds,
  })),
  soak: null,
  retries: null,
});

describe('figuresOf', () => {
  it('When processes spent CPU, then it is counted per create answered 2xx, across all of them', () => {
    const result = run('e2e', 1, 1_000, { cpuSeconds: [3, 2, 1] });
    result.load = { ...result.load, non2xx: 4_000 };

    expect(figuresOf(result).cpuMicrosPerCreate).toBe(375);
  });
});

describe('summarize and targetsOf', () => {
  it('When the comparison ran three times, then each figure is spread over the runs and the targets read the medians', () => {
    const results = [
      run('direct', 1, 1_000, { p99: 60, sequential: 1.5 }),
      run('e2e', 1, 2_400, { p99: 50, sequential: 2.4, cpuSeconds: [6, 6] }),
      run('nestjs', 1, 500),
      run('nestjs', 2, 400),
      run('e2e', 2, 3_000, { p99: 30, sequential: 2.5, cpuSeconds: [6, 6] }),
      run('direct', 2, 1_200, { p99: 50, sequential: 1.5 }),
      run('direct', 3, 1_100, { p99: 55, sequential: 1.5 }),
      run('e2e', 3, 2_750, { p99: 40, sequential: 2.6, cpuSeconds: [6, 6] }),
      run('nestjs', 3, 550),
    ];

    const summaries = summarize(results);

    expect(summaries.map(({ variant, runs }) => [variant, runs])).toEqual([
      ['direct', 3],
      ['e2e', 3],
      ['nestjs', 3],
    ]);
    expect(summaries[1]?.requestsPerSecond).toEqual({ min: 2_400, median: 2_750, max: 3_000 });
    expect(summaries[1]?.cpuMicrosPerCreate).toEqual({ min: 200, median: 218, max: 250 });
    expect(targetsOf(summaries)).toEqual([
      { label: 'e2e throughput / nestjs (target ≥ 5×)', value: '5.50×', met: true },
      { label: 'e2e throughput / direct (target ≥ 2.5×)', value: '2.50×', met: true },
      { label: 'e2e CPU per create, all processes (target ≤ 250 µs)', value: '218 µs', met: true },
      {
        label: 'e2e p99 (target ≤ direct p99 and ≤ 100 ms)',
        value: '40.00 ms against 55.00 ms',
        met: true,
      },
      { label: 'sequential median e2e − direct (target ≤ 1 ms)', value: '1.00 ms', met: true },
    ]);
  });

  it('When a figure is just past its bound, then its target is missed', () => {
    const summaries = summarize([
      run('direct', 1, 1_000, { p99: 120, sequential: 1 }),
      run('e2e', 1, 2_499, { p99: 101, sequential: 2.01, cpuSeconds: [12.5, 0.06] }),
      run('nestjs', 1, 500),
    ]);

    expect(targetsOf(summaries).map(({ met }) => met)).toEqual([false, false, false, false, false]);
  });

  it('When nestjs and direct did not run, then their targets say so and are missed', () => {
    const targets = targetsOf(summarize([run('e2e', 1, 2_000)]));

    expect(targets.filter(({ value }) => value === null).map(({ met }) => met)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
