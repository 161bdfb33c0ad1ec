import type { LoadResult } from './load.ts';
import type { ProcessUsage } from './process-stats.ts';

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
  load: LoadResult;
  sequential: LoadResult | null;
  usage: ProcessUsage[];
  soak: SoakResult | null;
  /** Retries of stored plants sent beside the load (`--preload`). */
  retries: LoadResult | null;
}

export interface Report {
  startedAt: string;
  settings: {
    connections: number;
    duration: number;
    warmup: number;
    partitions: number;
    writers: number;
    gateways: number;
    sequential: number;
    preload: number;
    store: string;
    logLevel: string;
    idsBeyond2To53: boolean;
  };
  documentsStoredAtEnd: number;
  results: VariantResult[];
}

const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : `${(a / b).toFixed(2)}×`);
const verdict = (met: boolean) => (met ? 'met' : '**missed**');
const growth = (from: number, to: number) =>
  from === 0 ? 0 : Math.round(((to - from) / from) * 1000) / 10;

export function toMarkdown(report: Report): string {
  const { settings } = report;
  return [
    `# Benchmark ${report.startedAt}`,
    '',
    `${settings.connections} connections × ${settings.duration} s per variant after ${settings.warmup} s of warm-up, ` +
      `${settings.partitions} partitions, ` +
      `${settings.writers} writer(s), ${settings.gateways} gateway(s), ` +
      `store ${settings.store}, services logging at ${settings.logLevel}` +
      `${settings.idsBeyond2To53 ? ', ids beyond 2^53' : ''}; ` +
      `${report.documentsStoredAtEnd} documents stored at the end.`,
    '',
    '| variant | req/s | p50 ms | p90 ms | p99 ms | non-2xx | errors | RSS max / CPU s per process (PostgreSQL: PSS of all its processes) |',
    '|---|---|---|---|---|---|---|---|',
    ...report.results.map(variantRow),
    '',
    `Sequential: one client, ${settings.sequential} creates.`,
    '',
    '| variant | median ms | p99 ms | failed |',
    '|---|---|---|---|',
    ...report.results.flatMap(({ variant, sequential }) =>
      sequential === null
        ? []
        : [
            `| ${variant} | ${sequential.p50} | ${sequential.p99} | ${sequential.non2xx + sequential.errors} |`,
          ],
    ),
    '',
    ...retryLines(report.results),
    ...targetLines(report.results),
    '',
    ...soakLines(report.results.find((result) => result.soak !== null)?.soak ?? null),
  ].join('\n');
}

function variantRow({ variant, load, usage }: VariantResult): string {
  const processes = usage
    .map(
      ({ name, maxRssMiB, cpuSeconds }) => `${name} ${maxRssMiB} MiB / ${cpuSeconds.toFixed(1)} s`,
    )
    .join('<br>');
  return `| ${variant} | ${load.requestsPerSecond} | ${load.p50} | ${load.p90} | ${load.p99} | ${load.non2xx} | ${load.errors} | ${processes} |`;
}

function targetLines(results: readonly VariantResult[]): string[] {
  const direct = results.find(({ variant }) => variant === 'direct');
  const e2e = results.find(({ variant }) => variant === 'e2e');
  if (direct === undefined || e2e === undefined) return [];
  const throughput = e2e.load.requestsPerSecond / Math.max(1, direct.load.requestsPerSecond);
  const lines = [
    `- throughput e2e/direct: ${ratio(e2e.load.requestsPerSecond, direct.load.requestsPerSecond)} (target ≥ 1.5×: ${verdict(throughput >= 1.5)})`,
    `- p99 e2e/direct: ${ratio(e2e.load.p99, direct.load.p99)} (target ≤ 1×: ${verdict(e2e.load.p99 <= direct.load.p99)})`,
  ];
  if (e2e.sequential !== null && direct.sequential !== null) {
    const extra = e2e.sequential.p50 - direct.sequential.p50;
    lines.push(
      `- sequential median e2e − direct: ${extra.toFixed(2)} ms (target ≤ 3 ms: ${verdict(extra <= 3)})`,
    );
  }
  return lines;
}

/**
 * With --preload: the e2e run beside retries of the run's own plants, on the store before the
 * preload; beside retries of preloaded plants after it, saturated and at half that peak; against
 * the e2e run without retries. Retry latency is judged at half the peak: saturated, every answer
 * waits behind the connections ahead of it, fresh or not.
 */
function retryLines(results: readonly VariantResult[]): string[] {
  const plain = results.find(({ variant }) => variant === 'e2e');
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
