import { createsAnswered, type LoadResult } from './load.ts';
import type { ProfileSummary } from './cpu-profile.ts';
import type { MachineUsage, ProcessUsage } from './process-stats.ts';
import type { ReplyFetches } from './reply-fetches.ts';
import { summarize, targetsOf, times, type Spread, type VariantSummary } from './summary.ts';
import { calibrationLine, type Calibration } from './calibration.ts';
import type { WarmUp } from './warm-up.ts';
import type { OpenLoop } from './open-loop/measure-open-loop.ts';
import { openLoopLines } from './open-loop/report-lines.ts';

export interface SoakResult {
  seconds: number;
  rate: number;
  load: LoadResult;
  processes: string[];
  /** RSS of each process (in the order of `processes`) every 10 s, from the start of the soak. */
  samples: { second: number; rssMiB: number[] }[];
}

export interface VariantResult {
  variant: string;
  /** Which repetition of the comparison it belongs to, from 1 (`--repeat`). */
  round: number;
  load: LoadResult;
  sequential: LoadResult | null;
  usage: ProcessUsage[];
  /** The whole machine over the measured window (absent from reports written before it was). */
  machine?: MachineUsage;
  soak: SoakResult | null;
  /** Retries of stored plants sent beside the load (`--preload`). */
  retries: LoadResult | null;
  /** Requests of each kind the brokers handled per 1,000 creates answered, from their JMX. */
  brokerRequestsPerThousand?: Record<string, number>;
  /** Where each Node process spent its CPU (`--cpu-prof`). */
  profiles?: ProfileSummary[];
  /** What each gateway's reply consumer fetched during the load, in gateway order (e2e). */
  replyFetches?: ReplyFetches[];
  /** The warm-up before the measured load (absent from reports written before it was measured). */
  warmUp?: WarmUp;
  /** The steady arrival rates after it (`--rates`, `--capacity`). */
  openLoop?: OpenLoop;
}

export interface Report {
  startedAt: string;
  calibration: Calibration;
  settings: {
    connections: number;
    duration: number;
    warmup: number;
    partitions: number;
    writers: number;
    gateways: number;
    sequential: number;
    repeat: number;
    preload: number;
    store: string;
    logLevel: string;
    idsBeyond2To53: boolean;
    /** Absent from reports written before the open loop. */
    rates?: number[];
    capacityTargetMs?: number | null;
  };
  documentsStoredAtEnd: number;
  results: VariantResult[];
}

const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : times(a / b));
const verdict = (met: boolean) => (met ? 'met' : '**missed**');
const growth = (from: number, to: number) =>
  from === 0 ? 0 : Math.round(((to - from) / from) * 1000) / 10;

/** A run's name in tables and charts: its variant, and its repetition when there are several. */
export function runLabel(result: VariantResult, repeat: number): string {
  return repeat > 1 && result.retries === null
    ? `${result.variant} #${String(result.round)}`
    : result.variant;
}

export function toMarkdown(report: Report): string {
  const { settings } = report;
  const compared = report.results.filter(({ retries }) => retries === null);
  const summaries = summarize(compared);
  const label = (result: VariantResult) => runLabel(result, settings.repeat);
  return [
    `# Benchmark ${report.startedAt}`,
    '',
    calibrationLine(report.calibration),
    '',
    `${settings.connections} connections × ${settings.duration} s per variant after a warm-up of at most ${settings.warmup} s, ` +
      `${settings.partitions} partitions, ` +
      `${settings.writers} writer(s), ${settings.gateways} gateway(s), ` +
      `store ${settings.store}, services logging at ${settings.logLevel}` +
      `${settings.idsBeyond2To53 ? ', ids beyond 2^53' : ''}; ` +
      `${report.documentsStoredAtEnd} documents stored at the end.`,
    '',
    '| variant | req/s | p50 ms | p90 ms | p99 ms | non-2xx | errors | RSS max / CPU s per process (PostgreSQL: PSS of all its processes) |',
    '|---|---|---|---|---|---|---|---|',
    ...report.results.map((result) => variantRow(label(result), result)),
    '',
    `Sequential: one client, ${settings.sequential} creates.`,
    '',
    '| variant | median ms | p99 ms | failed |',
    '|---|---|---|---|',
    ...report.results.flatMap((result) =>
      result.sequential === null
        ? []
        : [
            `| ${label(result)} | ${result.sequential.p50} | ${result.sequential.p99} | ${result.sequential.non2xx + result.sequential.errors} |`,
          ],
    ),
    '',
    ...summaryLines(summaries, settings.repeat),
    ...retryLines(report.results),
    ...targetsOf(summaries).map(
      ({ label: target, value, met }) =>
        `- ${target}: ${value ?? 'not measured'}: ${value === null ? '**missed**' : verdict(met)}`,
    ),
    '',
    ...openLoopLines(report.results, label),
    ...soakLines(report.results.find((result) => result.soak !== null)?.soak ?? null),
    ...warmUpLines(report.results, label),
    ...machineLines(report.results, label),
    ...brokerRequestLines(report.results, label),
    ...replyFetchLines(report.results, label),
    ...report.results.flatMap((result) => profileLines(label(result), result.profiles ?? [])),
  ].join('\n');
}

function variantRow(variant: string, { load, usage }: VariantResult): string {
  const processes = usage
    .map(
      ({ name, maxRssMiB, cpuSeconds }) => `${name} ${maxRssMiB} MiB / ${cpuSeconds.toFixed(1)} s`,
    )
    .join('<br>');
  return `| ${variant} | ${load.requestsPerSecond} | ${load.p50} | ${load.p90} | ${load.p99} | ${load.non2xx} | ${load.errors} | ${processes} |`;
}

const spread = ({ min, median, max }: Spread, digits: number) =>
  min === max
    ? median.toFixed(digits)
    : `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;

/**
 * Median (min–max) of every figure over the repetitions, and the ratios of the medians; the CPU
 * of every process the variant uses (services, broker, store) per create answered 2xx.
 */
function summaryLines(summaries: readonly VariantSummary[], repeat: number): string[] {
  const e2e = summaries.find(({ variant }) => variant === 'e2e');
  const lines = [
    `${repeat > 1 ? `Over ${String(repeat)} repetitions, in alternating order` : 'One run'}: median (min–max); ratios from the medians.`,
    '',
    '| variant | req/s | e2e ÷ it | p50 ms | p99 ms | sequential median ms | CPU µs per create |',
    '|---|---|---|---|---|---|---|',
    ...summaries.map((summary) => {
      const { variant, requestsPerSecond, p50, p99, sequentialMedian, cpuMicrosPerCreate } =
        summary;
      const relative =
        e2e === undefined || variant === 'e2e'
          ? ''
          : ratio(e2e.requestsPerSecond.median, requestsPerSecond.median);
      return `| ${variant} | ${spread(requestsPerSecond, 0)} | ${relative} | ${spread(p50, 2)} | ${spread(p99, 2)} | ${sequentialMedian === null ? '' : spread(sequentialMedian, 2)} | ${cpuMicrosPerCreate === null ? '' : spread(cpuMicrosPerCreate, 0)} |`;
    }),
    '',
  ];
  return lines;
}

/**
 * With --preload: the e2e run beside retries of the run's own plants, on the store before the
 * preload; beside retries of preloaded plants after it, saturated and at half that peak; against
 * the e2e run without retries. Retry latency is judged at half the peak: saturated, every answer
 * waits behind the connections ahead of it, fresh or not.
 */
function retryLines(results: readonly VariantResult[]): string[] {
  const plain = results.findLast(({ variant }) => variant === 'e2e');
  const retried = results.flatMap(({ variant, load, retries }) =>
    retries === null ? [] : [{ variant, load, retries }],
  );
  const [small, large, paced] = retried;
  if (small === undefined || large === undefined) return [];
  const atOperatingPoint = paced ?? large;
  const { retries } = atOperatingPoint;
  const lines = [
    ...retried.map(
      ({ variant, load, retries: run }) =>
        `Retries during \`${variant}\`: ${run.requests} answered, median ${run.p50} ms, ` +
        `p99 ${run.p99} ms, ${run.non2xx + run.errors} failed; fresh creates' median ` +
        `${load.p50} ms, p99 ${load.p99} ms.`,
    ),
    '',
    `- retry median at \`${atOperatingPoint.variant}\`: ${retries.p50} ms (target ≤ 20 ms: ${verdict(retries.p50 <= 20)})`,
    `- retry p99 at \`${atOperatingPoint.variant}\`: ${retries.p99} ms (target ≤ 100 ms: ${verdict(retries.p99 <= 100)})`,
    `- e2e throughput with the preload and retries / the same retries before the preload: ${ratio(large.load.requestsPerSecond, small.load.requestsPerSecond)} (what the store's size costs)`,
  ];
  if (plain !== undefined) {
    const share = large.load.requestsPerSecond / Math.max(1, plain.load.requestsPerSecond);
    const waited = large.load.p99 - plain.load.p99;
    lines.push(
      `- e2e throughput with the preload and retries / without either: ${ratio(large.load.requestsPerSecond, plain.load.requestsPerSecond)} (target ≥ 0.9×: ${verdict(share >= 0.9)})`,
      `- fresh creates' p99 with the preload and retries − without either: ${waited.toFixed(2)} ms (target ≤ 50 ms: ${verdict(waited <= 50)})`,
    );
  }
  return [...lines, ''];
}

function soakLines(soak: SoakResult | null): string[] {
  if (soak === null) return [];
  const first = soak.samples[0]?.rssMiB ?? [];
  const last = soak.samples.at(-1)?.rssMiB ?? [];
  const settled = soak.samples.find(({ second }) => second >= 60)?.rssMiB ?? first;
  return [
    `Soak: e2e at ${soak.rate} req/s (80 % of its peak) for ${soak.seconds} s: ` +
      `${soak.load.requestsPerSecond} req/s, p99 ${soak.load.p99} ms, ${soak.load.non2xx} non-2xx, ${soak.load.errors} errors.`,
    '',
    '| process | RSS at start MiB | at 60 s | at end | growth start → end (target < 10 %) | growth 60 s → end |',
    '|---|---|---|---|---|---|',
    ...soak.processes.map((name, index) => {
      const [start, mid, end] = [first[index] ?? 0, settled[index] ?? 0, last[index] ?? 0];
      const total = growth(start, end);
      return `| ${name} | ${start} | ${mid} | ${end} | ${total} % (${verdict(total < 10)}) | ${growth(mid, end)} % |`;
    }),
    '',
  ];
}

/** Self time of each Node process of a run, by area and by function (`--cpu-prof`). */
function profileLines(run: string, profiles: readonly ProfileSummary[]): string[] {
  const shares = (list: ProfileSummary['byArea']) =>
    list.map(({ name, percent }) => `${name} ${percent.toFixed(1)} %`).join('; ');
  return profiles.flatMap(({ process, file, busySamples, byArea, byFunction }) => [
    `CPU profile of ${run}, ${process} (${String(busySamples)} busy samples; \`${file}\`):`,
    `- by area: ${shares(byArea)}`,
    `- by function: ${shares(byFunction)}`,
    '',
  ]);
}

/** What each create cost the brokers, in requests (Produce, Fetch, OffsetCommit, …). */
function brokerRequestLines(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const lines = results.flatMap((result) => {
    const requests = result.brokerRequestsPerThousand;
    if (requests === undefined) return [];
    const listed = Object.entries(requests)
      .map(([request, perThousand]) => `${request} ${String(perThousand)}`)
      .join(', ');
    return [`- ${label(result)}: ${listed}`];
  });
  return lines.length === 0 ? [] : ['Broker requests per 1,000 creates (JMX):', '', ...lines, ''];
}

/** How long each run warmed up, and what each step of its warm-up measured. */
function warmUpLines(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const lines = results.flatMap((result) => {
    const { warmUp } = result;
    if (warmUp === undefined || warmUp.steps.length === 0) return [];
    const steps = warmUp.steps.map(
      ({ cpuUsPerCreate, p99Ms }) => `${String(cpuUsPerCreate)} µs / ${String(p99Ms)} ms`,
    );
    return [
      `| ${label(result)} | ${String(warmUp.seconds)}${warmUp.capped ? ' (the cap, still falling)' : ''} | ${steps.join(' → ')} |`,
    ];
  });
  if (lines.length === 0) return [];
  return [
    'Warm-up, in steps of 5 s, until neither CPU per create nor p99 fell by 5 % in a step (`--warmup` is the cap):',
    '',
    '| run | warm-up s | each step: CPU per create / p99 |',
    '|---|---|---|',
    ...lines,
    '',
  ];
}

/** Busy, I/O wait and stolen CPU over each run, and the load generator's own share. */
function machineLines(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const lines = results.flatMap(({ machine, ...result }) =>
    machine === undefined
      ? []
      : [
          `| ${label({ machine, ...result })} | ${String(machine.busyPercent)} | ${String(machine.iowaitPercent)} | ${String(machine.stealPercent)} | ${machine.loadGeneratorCpuSeconds.toFixed(1)} |`,
        ],
  );
  if (lines.length === 0) return [];
  return [
    'The machine while each run was measured (all CPUs, from /proc/stat):',
    '',
    '| run | busy % | I/O wait % | stolen % | load generator CPU s |',
    '|---|---|---|---|---|',
    ...lines,
    '',
  ];
}

/**
 * Per create answered: the reply records and bytes each gateway fetched and all of them together
 * (1 when every gateway reads a partition of its own), and the gateways' CPU.
 */
function replyFetchLines(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const lines = results.flatMap((result) => {
    const fetches = result.replyFetches;
    const creates = createsAnswered(result.load);
    if (fetches === undefined || creates === 0) return [];
    const per = ({ records, bytes }: ReplyFetches) =>
      `${(records / creates).toFixed(2)} records / ${String(Math.round(bytes / creates))} B`;
    const total = fetches.reduce(
      (sum, each) => ({ records: sum.records + each.records, bytes: sum.bytes + each.bytes }),
      { records: 0, bytes: 0 },
    );
    const gatewayCpu = result.usage
      .filter(({ name }) => name.startsWith('gateway'))
      .reduce((sum, { cpuSeconds }) => sum + cpuSeconds, 0);
    const each = fetches.map((fetched, index) => `gateway ${String(index + 1)} ${per(fetched)}`);
    return [
      `- ${label(result)}: ${each.join(', ')}; all gateways ${per(total)}; gateways’ CPU ${String(Math.round((gatewayCpu * 1e6) / creates))} µs`,
    ];
  });
  return lines.length === 0
    ? []
    : ['Reply records fetched per create answered, by gateway:', '', ...lines, ''];
}
