import type { LoadResult } from './load.ts';
import type { ProcessUsage } from './process-stats.ts';

export interface SoakResult {
  seconds: number;
  rate: number;
  load: LoadResult;
  rss: { name: string; startMiB: number; endMiB: number; growthPercent: number }[];
}

export interface VariantResult {
  variant: string;
  load: LoadResult;
  sequential: LoadResult | null;
  usage: ProcessUsage[];
  soak: SoakResult | null;
}

export interface Report {
  startedAt: string;
  settings: {
    connections: number;
    duration: number;
    partitions: number;
    writers: number;
    sequential: number;
    store: string;
  };
  documentsStoredAtEnd: number;
  results: VariantResult[];
}

const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : `${(a / b).toFixed(2)}×`);

export function toMarkdown(report: Report): string {
  const { settings } = report;
  const rows = report.results.map(
    ({ variant, load, usage }) =>
      `| ${variant} | ${load.requestsPerSecond} | ${load.p50} | ${load.p90} | ${load.p99} | ${load.non2xx} | ${load.errors} | ` +
      usage
        .map(
          ({ name, maxRssMiB, cpuSeconds }) =>
            `${name} ${maxRssMiB} MiB / ${cpuSeconds.toFixed(1)} s`,
        )
        .join('<br>') +
      ' |',
  );
  const sequentialRows = report.results.flatMap(({ variant, sequential }) =>
    sequential === null
      ? []
      : [
          `| ${variant} | ${sequential.p50} | ${sequential.p99} | ${sequential.non2xx + sequential.errors} |`,
        ],
  );
  const direct = report.results.find(({ variant }) => variant === 'direct');
  const e2e = report.results.find(({ variant }) => variant === 'e2e');
  const ratios =
    direct && e2e
      ? [
          `- throughput e2e/direct: ${ratio(e2e.load.requestsPerSecond, direct.load.requestsPerSecond)}`,
          `- p99 e2e/direct: ${ratio(e2e.load.p99, direct.load.p99)}`,
          `- sequential median e2e − direct: ${((e2e.sequential?.p50 ?? 0) - (direct.sequential?.p50 ?? 0)).toFixed(2)} ms`,
        ]
      : [];
  const soak = report.results.find((result) => result.soak !== null)?.soak;
  const soakLines = soak
    ? [
        `Soak: e2e at ${soak.rate} req/s (80 % of its peak) for ${soak.seconds} s: ` +
          `${soak.load.requestsPerSecond} req/s, p99 ${soak.load.p99} ms, ${soak.load.non2xx} non-2xx, ${soak.load.errors} errors.`,
        '',
        '| process | RSS at start MiB | RSS at end MiB | growth |',
        '|---|---|---|---|',
        ...soak.rss.map(
          ({ name, startMiB, endMiB, growthPercent }) =>
            `| ${name} | ${startMiB} | ${endMiB} | ${growthPercent} % |`,
        ),
        '',
      ]
    : [];
  return [
    `# Benchmark ${report.startedAt}`,
    '',
    `${settings.connections} connections × ${settings.duration} s per variant, ${settings.partitions} partitions, ` +
      `${settings.writers} writer(s), ` +
      `store ${settings.store}; ${report.documentsStoredAtEnd} documents stored at the end.`,
    '',
    '| variant | req/s | p50 ms | p90 ms | p99 ms | non-2xx | errors | RSS max / CPU s per process |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Sequential: one client, ${settings.sequential} creates.`,
    '',
    '| variant | median ms | p99 ms | failed |',
    '|---|---|---|---|',
    ...sequentialRows,
    '',
    ...ratios,
    '',
    ...soakLines,
  ].join('\n');
}
