import { describe, expect, it } from 'vitest';
import type { RateStep } from '#bench/open-loop/rate-step.ts';
import { costCurveCharts } from '#bench/report/cost-curve-chart.ts';
import { costCurve } from '#bench/report/cost-curve.ts';
import { costCurveLines } from '#bench/report/markdown/cost-curve-section.ts';
import type { VariantResult } from '#bench/report/results.ts';

const step = (
  offered: number,
  sent: number,
  usage: [string, number][],
  p50 = 5,
  p99 = 20,
): RateStep => ({
  offered,
  seconds: 10,
  sent,
  achieved: offered,
  sendLagP99: 0.5,
  behindSchedule: false,
  p50,
  p99,
  p999: p99,
  max: p99,
  errors: 0,
  errorKinds: {},
  generatorCpuSeconds: 1,
  machineBusyPercent: 50,
  usage: usage.map(([name, cpuSeconds]) => ({ name, maxRssMiB: 100, cpuSeconds })),
  perSecond: [],
});

// 400/s: gateway 2 s and writer 1 s over 4,000 sent are 500 and 250 µs a create, 750 in all.
const e2e: VariantResult = {
  variant: 'e2e',
  round: 1,
  load: {
    requestsPerSecond: 2000,
    p50: 20,
    p90: 30,
    p99: 50,
    requests: 40_000,
    non2xx: 0,
    errors: 0,
  },
  sequential: null,
  usage: [
    { name: 'gateway', maxRssMiB: 150, cpuSeconds: 12 },
    { name: 'writer-1', maxRssMiB: 150, cpuSeconds: 8 },
  ],
  soak: null,
  retries: null,
  openLoop: {
    rates: [
      step(400, 4_000, [
        ['gateway', 2],
        ['writer-1', 1],
      ]),
      step(
        100,
        1_000,
        [
          ['gateway', 1],
          ['writer-1', 0.5],
        ],
        3,
        9,
      ),
    ],
    capacity: {
      targetMs: 50,
      rate: 250,
      steps: [
        step(250, 2_500, [
          ['gateway', 1.5],
          ['writer-1', 1],
        ]),
      ],
    },
  },
};

describe('The cost curve of a run: CPU per create against offered rate', () => {
  it('When a run has open-loop steps, then each costs its processes’ CPU over the requests sent, by rate, and the closed loop comes last', () => {
    expect(costCurve(e2e)).toEqual([
      {
        rate: 100,
        closedLoop: false,
        byProcess: [
          { name: 'gateway', us: 1000 },
          { name: 'writer-1', us: 500 },
        ],
        totalUs: 1500,
        requests: 1_000,
        p50: 3,
        p99: 9,
      },
      {
        rate: 250,
        closedLoop: false,
        byProcess: [
          { name: 'gateway', us: 600 },
          { name: 'writer-1', us: 400 },
        ],
        totalUs: 1000,
        requests: 2_500,
        p50: 5,
        p99: 20,
      },
      {
        rate: 400,
        closedLoop: false,
        byProcess: [
          { name: 'gateway', us: 500 },
          { name: 'writer-1', us: 250 },
        ],
        totalUs: 750,
        requests: 4_000,
        p50: 5,
        p99: 20,
      },
      {
        rate: 2000,
        closedLoop: true,
        byProcess: [
          { name: 'gateway', us: 300 },
          { name: 'writer-1', us: 200 },
        ],
        totalUs: 500,
        requests: 40_000,
        p50: 20,
        p99: 50,
      },
    ]);
  });

  it('When the report is written, then the curve is a table by process with the closed loop as its last row', () => {
    expect(costCurveLines([e2e], ({ variant }) => variant).slice(2)).toEqual([
      '| e2e: offered req/s | CPU per create µs | gateway | writer-1 | p50 ms | p99 ms |',
      '|---|---|---|---|---|---|',
      '| 100 | 1500 | 1000 | 500 | 3.0 | 9.0 |',
      '| 250 | 1000 | 600 | 400 | 5.0 | 20.0 |',
      '| 400 | 750 | 500 | 250 | 5.0 | 20.0 |',
      '| closed loop (2000) | 500 | 300 | 200 | 20.0 | 50.0 |',
      '',
    ]);
  });

  it('When the run was profiled, then each point also splits each Node process’s CPU per create by where its samples went', () => {
    const [at400, at100] = e2e.openLoop?.rates ?? [];
    const profiled: VariantResult = {
      ...e2e,
      loadSplit: [
        {
          process: 'gateway',
          busySamples: 900,
          // 200 µs of main thread for each of the closed loop's 40,000 requests.
          busyUs: 8_000_000,
          byGroup: [
            { name: 'kafkajs', percent: 50 },
            { name: 'GC', percent: 50 },
          ],
          byCaller: [
            { name: 'services/gateway/src/kafka/publisher.ts', percent: 75 },
            { name: 'fastify & Node HTTP', percent: 25 },
          ],
        },
      ],
      openLoop: {
        rates: [
          ...(at400 === undefined
            ? []
            : [
                {
                  ...at400,
                  split: [
                    {
                      process: 'writer-1',
                      busySamples: 10,
                      // More than the process's CPU: the main thread was counted busy while it
                      // waited for a core.
                      busyUs: 8_000_000,
                      byGroup: [{ name: 'store driver', percent: 100 }],
                      byCaller: [{ name: 'services/writer/src/store/plants.ts', percent: 100 }],
                    },
                  ],
                },
              ]),
          ...(at100 === undefined ? [] : [at100]),
        ],
        capacity: null,
      },
    };

    const lines = costCurveLines([profiled], ({ variant }) => variant);
    const split = lines.findIndex((line) => line.startsWith('| offered req/s | process |'));

    expect(lines.slice(split)).toEqual([
      '| offered req/s | process | CPU per create µs | kafkajs | store driver | GC | other threads |',
      '|---|---|---|---|---|---|---|',
      '| 400 | writer-1 | 250 | 0 | 250 | 0 | 0 |',
      '| closed loop (2000) | gateway | 300 | 100 | 0 | 100 | 100 |',
      '',
      "e2e, the same main-thread time by the project file it was spent for (the nearest project frame up the stack, or Fastify and Node's HTTP where one of theirs comes first), in µs per create, the eight largest:",
      '',
      '| offered req/s | process | spent for |',
      '|---|---|---|',
      '| 400 | writer-1 | services/writer/src/store/plants.ts 250 |',
      '| closed loop (2000) | gateway | services/gateway/src/kafka/publisher.ts 150, fastify & Node HTTP 50 |',
      '',
    ]);
  });

  it.each([
    ['perf', 'Sampled by Linux perf, on a CPU only:'],
    [
      'V8 (perf: command not found)',
      'Sampled by V8 (perf: command not found): its samples reach a thread late',
    ],
  ])('When the splits were sampled by %s, then the report says by what', (splitSampler, says) => {
    const sampled: VariantResult = {
      ...e2e,
      splitSampler,
      loadSplit: [{ process: 'gateway', busySamples: 1, busyUs: 1, byGroup: [], byCaller: [] }],
    };

    const lines = costCurveLines([sampled], ({ variant }) => variant);

    expect(lines.find((line) => line.includes('where each Node process'))).toContain(says);
  });

  it('When perf sampled the splits, then the table by project file warns that inlined functions show as their caller', () => {
    const sampled: VariantResult = {
      ...e2e,
      splitSampler: 'perf',
      loadSplit: [{ process: 'gateway', busySamples: 1, busyUs: 1, byGroup: [], byCaller: [] }],
    };

    const lines = costCurveLines([sampled], ({ variant }) => variant);

    expect(lines.find((line) => line.includes('by the project file it was spent for'))).toContain(
      'inlined into Fastify',
    );
  });

  it('When no run has an open loop, then the report has no curve', () => {
    const { openLoop, ...closedOnly } = e2e;
    expect(openLoop).toBeDefined();
    expect(costCurveLines([closedOnly], ({ variant }) => variant)).toEqual([]);
  });

  it('When the page is drawn, then the run has a chart of every process and the total against the rate, the closed loop hollow', () => {
    const [chart] = costCurveCharts([e2e], ({ variant }) => variant);
    const points = [
      ...(chart ?? '').matchAll(
        /<circle [^>]*data-series="([^"]+)" data-x="(\d+)" data-y="(\d+)"( data-flagged="closed loop")?/g,
      ),
    ].map(
      ([, series, x, y, flagged]) =>
        `${String(series)} ${String(x)} ${String(y)}${flagged === undefined ? '' : ' closed loop'}`,
    );

    expect(chart).toContain('data-chart="cost-curve-e2e-1"');
    expect(points).toEqual([
      'all processes 100 1500',
      'all processes 250 1000',
      'all processes 400 750',
      'all processes 2000 500 closed loop',
      'gateway 100 1000',
      'gateway 250 600',
      'gateway 400 500',
      'gateway 2000 300 closed loop',
      'writer-1 100 500',
      'writer-1 250 400',
      'writer-1 400 250',
      'writer-1 2000 200 closed loop',
    ]);
  });
});
