import { describe, expect, it } from 'vitest';
import type { LoadResult } from '#bench/closed-loop/load.ts';
import { toMarkdown } from '#bench/report/markdown/markdown.ts';
import type { Report, VariantResult } from '#bench/report/results.ts';

const load = (requestsPerSecond: number, p50: number, p99: number): LoadResult => ({
  requestsPerSecond,
  p50,
  p90: p99,
  p99,
  requests: requestsPerSecond * 20,
  non2xx: 0,
  errors: 0,
});

const result = (variant: string, fresh: LoadResult, retries: LoadResult | null): VariantResult => ({
  variant,
  round: 1,
  load: fresh,
  sequential: null,
  usage: [],
  soak: null,
  retries,
});

function reportOf(results: VariantResult[], repeat = 1): Report {
  return {
    startedAt: 'now',
    calibration: { httpRequestsPerSecond: 21_000, sha256PerSecond: 480_000 },
    settings: {
      connections: 64,
      duration: 20,
      warmup: 15,
      partitions: 3,
      writers: 1,
      gateways: 1,
      sequential: 0,
      repeat,
      preload: 1_000_000,
      store: 'FerretDB',
      logLevel: 'warn',
      idsBeyond2To53: false,
    },
    documentsStoredAtEnd: 0,
    results,
  };
}

describe('The bench report of a --preload run', () => {
  const plain = result('e2e', load(2_000, 30, 60), null);
  const small = result('e2e @ 0 plants, retrying', load(1_600, 36, 80), load(100, 40, 90));
  const saturated = result(
    'e2e @ 1000000 more plants, retrying',
    load(1_700, 35, 85),
    load(110, 41, 88),
  );

  it('When the run at half the peak is there, then the retry targets are judged on it, and every run shows its fresh creates beside its retries', () => {
    const paced = result(
      'e2e @ 1000000 more plants, retrying, 1000 creates/s',
      load(1_000, 8, 30),
      load(300, 12, 45),
    );

    const markdown = toMarkdown(reportOf([plain, small, saturated, paced]));

    expect(markdown).toContain(
      '- retry median at `e2e @ 1000000 more plants, retrying, 1000 creates/s`: 12 ms (target ≤ 20 ms: met)',
    );
    expect(markdown).toContain(
      '- retry p99 at `e2e @ 1000000 more plants, retrying, 1000 creates/s`: 45 ms (target ≤ 100 ms: met)',
    );
    expect(markdown).toContain(
      "Retries during `e2e @ 1000000 more plants, retrying`: 2200 answered, median 41 ms, p99 88 ms, 0 failed; fresh creates' median 35 ms, p99 85 ms.",
    );
    expect(markdown).toContain(
      '- e2e throughput with the preload and retries / without either: 0.85× (target ≥ 0.9×: **missed**)',
    );
  });

  it('When there is no run at half the peak, then the saturated run is judged', () => {
    const markdown = toMarkdown(reportOf([plain, small, saturated]));

    expect(markdown).toContain(
      '- retry median at `e2e @ 1000000 more plants, retrying`: 41 ms (target ≤ 20 ms: **missed**)',
    );
  });
});

describe('The bench report of a --repeat run', () => {
  it('When the comparison ran twice, then every run is listed by its repetition and each variant gets its median, min and max, with ratios from the medians', () => {
    const runs = [
      { ...result('e2e', load(2_000, 20, 40), null), round: 1 },
      { ...result('direct', load(1_000, 30, 60), null), round: 1 },
      { ...result('direct', load(800, 30, 70), null), round: 2 },
      { ...result('e2e', load(3_000, 20, 50), null), round: 2 },
    ];

    const markdown = toMarkdown(reportOf(runs, 2));

    expect(markdown).toContain('| e2e #1 | 2000 |');
    expect(markdown).toContain('| direct #2 | 800 |');
    expect(markdown).toContain(
      'Over 2 repetitions, in alternating order: median (min–max); ratios from the medians.',
    );
    expect(markdown).toContain('| e2e | 2500 (2000–3000) |  | 20.00 | 45.00 (40.00–50.00) |');
    expect(markdown).toContain('| direct | 900 (800–1000) | 2.78× | 30.00 | 65.00 (60.00–70.00) |');
    expect(markdown).toContain('- e2e throughput / direct (target ≥ 2.5×): 2.78×: met');
    expect(markdown).toContain('- e2e throughput / nestjs (target ≥ 5×): not measured: **missed**');
  });
});

describe('The bench report of an e2e run with several gateways', () => {
  it('When each gateway’s reply fetches were counted, then each one’s and all of theirs are given per create answered, with the gateways’ CPU', () => {
    const run: VariantResult = {
      ...result('e2e', load(1_000, 20, 40), null),
      usage: [
        { name: 'gateway-1', maxRssMiB: 90, cpuSeconds: 4 },
        { name: 'gateway-2', maxRssMiB: 90, cpuSeconds: 6 },
        { name: 'writer-1', maxRssMiB: 90, cpuSeconds: 9 },
      ],
      replyFetches: [
        { records: 10_000, bytes: 4_000_000 },
        { records: 12_000, bytes: 4_800_000 },
      ],
    };

    expect(toMarkdown(reportOf([run]))).toContain(
      '- e2e: gateway 1 0.50 records / 200 B, gateway 2 0.60 records / 240 B; all gateways 1.10 records / 440 B; gateways’ CPU 500 µs',
    );
  });

  it('When the runs warmed up, then each one’s warm-up steps are listed with what failed in each, by status, and one that reached the cap is flagged', () => {
    const warm = {
      ...result('e2e', load(2_000, 20, 40), null),
      warmUp: {
        seconds: 15,
        capped: false,
        steps: [
          { cpuUsPerCreate: 900, p99Ms: 80, failures: { 503: 476, 'no answer': 2 } },
          { cpuUsPerCreate: 400, p99Ms: 20, failures: {} },
          { cpuUsPerCreate: 395, p99Ms: 20, failures: {} },
        ],
      },
    };
    const capped = {
      ...result('direct', load(1_000, 30, 60), null),
      warmUp: {
        seconds: 10,
        capped: true,
        steps: [
          { cpuUsPerCreate: 300, p99Ms: 9 },
          { cpuUsPerCreate: 200, p99Ms: 8 },
        ],
      },
    };

    const markdown = toMarkdown(reportOf([warm, capped]));

    expect(markdown).toContain(
      '| e2e | 15 | 900 µs / 80 ms / 503 × 476, no answer × 2 → 400 µs / 20 ms / none failed → 395 µs / 20 ms / none failed |',
    );
    expect(markdown).toContain(
      '| direct | 10 (the cap, still falling) | 300 µs / 9 ms → 200 µs / 8 ms |',
    );
  });
});
