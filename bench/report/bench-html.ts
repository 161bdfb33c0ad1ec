import { rangeBars, stackedBars } from '#tooling/charts/bar-chart.ts';
import { escapeXml, PALETTE } from '#tooling/charts/chart-frame.ts';
import { lineChart, type Mark, type Series } from '#tooling/charts/line-chart.ts';
import { htmlPage, paragraph, type RenderedReport } from '#tooling/charts/page.ts';
import { spreadOf } from '#tooling/statistics/spread.ts';
import { createsAnswered, DISTRIBUTION } from '../closed-loop/load.ts';
import { stepsByRate, type RateStep } from '../open-loop/rate-step.ts';
import { calibrationLine } from '../probes/calibration.ts';
import { costCurveCharts } from './cost-curve-chart.ts';
import { toMarkdown } from './markdown/markdown.ts';
import { capacitiesByVariant } from './markdown/open-loop-section.ts';
import { runLabel, type Report, type VariantResult } from './results.ts';
import { summarize } from './summary.ts';

/** A bench report as one page of charts, with the Markdown report below them. */
export function benchHtml(report: Report): RenderedReport {
  const label = (result: VariantResult) => runLabel(result, report.settings.repeat);
  const compared = report.results.filter(({ retries }) => retries === null);
  const throughput = throughputChart(compared, label);
  const latency = latencyPerSecondChart(compared, label);
  const rates = latencyAgainstRate(report, label);
  const charts = [
    throughput,
    latency,
    percentileChart(compared, label),
    ...(rates === null ? [] : [rates]),
    cpuChart(compared, label),
    ...costCurveCharts(compared, label),
    ...brokerChart(compared, label),
    ...repeatCharts(report),
  ];
  const html = htmlPage(`Benchmark ${report.startedAt}`, [
    paragraph(calibrationLine(report.calibration)),
    ...charts,
    '<h2>The report</h2>',
    `<pre>${escapeXml(toMarkdown(report))}</pre>`,
  ]);
  return { html, mainChart: rates ?? throughput };
}

function throughputChart(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string {
  return lineChart({
    id: 'throughput',
    title: 'Requests answered per second (2xx or not), warm-up (shaded) then measured',
    xLabel: 's from the start of the measured load',
    yLabel: 'answered per second',
    series: results.map((result) => ({
      name: label(result),
      points: secondsOf(result).map(({ x, second }) => ({ x, y: second.answered })),
    })),
    marks: warmUpMarks(results),
  });
}

/** The longest warm-up of the runs, shaded. */
function warmUpMarks(results: readonly VariantResult[]): Mark[] {
  const longest = Math.max(0, ...results.map(({ warmUp }) => warmUp?.perSecond?.length ?? 0));
  return longest === 0 ? [] : [{ x: -longest, to: 0, label: 'warm-up' }];
}

/** A run's seconds, warm-up first, numbered from the measured load's start (warm-up negative). */
function secondsOf(result: VariantResult) {
  const warm = result.warmUp?.perSecond ?? [];
  return [...warm, ...(result.load.perSecond ?? [])].map((second, index) => ({
    x: index - warm.length + 1,
    second,
  }));
}

function latencyPerSecondChart(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string {
  // A second without a 2xx answer has no percentiles (NaN): the chart leaves it out.
  const series: Series[] = results.flatMap((result, index) => {
    const color = PALETTE[index % PALETTE.length] ?? '#333';
    return [
      {
        name: `${label(result)} p99`,
        color,
        points: secondsOf(result).map(({ x, second }) => ({ x, y: second.p99 })),
      },
      {
        name: `${label(result)} p50`,
        color,
        stroke: 'dashed' as const,
        points: secondsOf(result).map(({ x, second }) => ({ x, y: second.p50 })),
      },
    ];
  });
  return lineChart({
    id: 'latency-per-second',
    title: 'Latency of each second’s 2xx answers (p99 solid, p50 dashed)',
    xLabel: 's from the start of the measured load',
    yLabel: 'ms',
    series,
    marks: warmUpMarks(results),
  });
}

function percentileChart(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string {
  return lineChart({
    id: 'percentiles',
    title: 'Latency distribution of the measured load (closed loop)',
    xLabel: 'percentile',
    yLabel: 'ms',
    xScale: 'nines',
    yScale: 'log',
    series: results.flatMap((result) => {
      const { distribution } = result.load;
      if (distribution === undefined) return [];
      return [
        {
          name: label(result),
          points: DISTRIBUTION.map((p, index) => ({ x: p, y: distribution[index] ?? 0 })),
        },
      ];
    }),
  });
}

/** p50, p99 and p99.9 against each offered rate of the open loop; behind-schedule steps hollow. */
function latencyAgainstRate(
  report: Report,
  label: (result: VariantResult) => string,
): string | null {
  const runs = report.results.filter(({ openLoop }) => openLoop !== undefined);
  if (runs.length === 0) return null;
  const variants = [...new Set(runs.map(({ variant }) => variant))];
  const series: Series[] = runs.flatMap((result) => {
    const steps = stepsByRate(result.openLoop);
    const at = (pick: (step: RateStep) => number) =>
      steps.map((step) => ({
        x: step.offered,
        y: pick(step),
        ...(step.behindSchedule
          ? { flagged: 'generator behind schedule' }
          : step.errors > 0
            ? { flagged: `${String(step.errors)} errors` }
            : {}),
      }));
    // Each variant in a colour of its own; p99 solid, p50 dashed and p99.9 dotted. Three lines
    // a run are readable for two runs, not for six: repetitions show p99 alone.
    const color = PALETTE[variants.indexOf(result.variant) % PALETTE.length] ?? '#333';
    const p99: Series = { name: `${label(result)} p99`, color, points: at(({ p99: ms }) => ms) };
    if (report.settings.repeat > 1) return [p99];
    return [
      p99,
      { name: `${label(result)} p50`, color, stroke: 'dashed', points: at(({ p50 }) => p50) },
      { name: `${label(result)} p99.9`, color, stroke: 'dotted', points: at(({ p999 }) => p999) },
    ];
  });
  const target = report.settings.capacityTargetMs;
  return lineChart({
    id: 'latency-vs-rate',
    title:
      report.settings.repeat > 1
        ? 'p99 against offered rate, each run (open loop, from intended send time; hollow: errors or behind schedule)'
        : 'Latency against offered rate (open loop, from intended send time; hollow: errors or generator behind schedule)',
    xLabel: 'offered creates per second',
    yLabel: 'ms (log scale)',
    yScale: 'log',
    series,
    ...(target === undefined || target === null
      ? {}
      : { target: { y: target, label: `p99 target ${String(target)} ms` } }),
  });
}

function cpuChart(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string {
  return stackedBars({
    id: 'cpu-per-create',
    title: 'CPU per create answered, by process (µs)',
    xLabel: 'µs of CPU per create',
    rows: results.map((result) => {
      const creates = Math.max(1, createsAnswered(result.load));
      return {
        label: label(result),
        segments: result.usage.map(({ name, cpuSeconds }) => ({
          name,
          value: Math.round((cpuSeconds * 1e6) / creates),
        })),
      };
    }),
  });
}

function brokerChart(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const rows = results.flatMap((result) =>
    result.brokerRequestsPerThousand === undefined
      ? []
      : [
          {
            label: label(result),
            segments: Object.entries(result.brokerRequestsPerThousand).map(([name, value]) => ({
              name,
              value,
            })),
          },
        ],
  );
  return rows.length === 0
    ? []
    : [
        stackedBars({
          id: 'broker-requests',
          title: 'Broker requests per 1,000 creates, by kind (JMX)',
          xLabel: 'requests per 1,000 creates',
          rows,
        }),
      ];
}

/** With --repeat: each variant's median and min–max, closed loop and, when searched, capacity. */
function repeatCharts(report: Report): string[] {
  if (report.settings.repeat < 2) return [];
  const summaries = summarize(report.results.filter(({ retries }) => retries === null));
  const charts = [
    rangeBars({
      id: 'repeat-throughput',
      title: `Closed-loop creates per second over ${String(report.settings.repeat)} repetitions: median, min–max`,
      xLabel: 'creates per second',
      rows: summaries.map(({ variant, requestsPerSecond }) => ({
        label: variant,
        ...requestsPerSecond,
      })),
    }),
    rangeBars({
      id: 'repeat-p99',
      title: `Closed-loop p99 over ${String(report.settings.repeat)} repetitions: median, min–max`,
      xLabel: 'ms',
      rows: summaries.map(({ variant, p99 }) => ({ label: variant, ...p99 })),
    }),
  ];
  const capacities = capacitiesByVariant(report.results);
  if (capacities.size > 0)
    charts.push(
      rangeBars({
        id: 'repeat-capacity',
        title: `Capacity at p99 ≤ ${String(report.settings.capacityTargetMs)} ms over ${String(report.settings.repeat)} repetitions: median, min–max`,
        xLabel: 'creates per second held',
        rows: [...capacities].map(([variant, runs]) => ({
          label: variant,
          ...spreadOf(runs.map(({ rate }) => rate)),
        })),
      }),
    );
  return charts;
}
