import { calibrationLine } from '../../probes/calibration.ts';
import { runLabel, type Report, type VariantResult } from '../results.ts';
import { summarize, targetsOf } from '../summary.ts';
import { verdict } from './cells.ts';
import { costCurveLines } from './cost-curve-section.ts';
import { openLoopLines } from './open-loop-section.ts';
import {
  brokerRequestLines,
  machineLines,
  profileLines,
  replyFetchLines,
} from './probe-sections.ts';
import { retryLines } from './retries-section.ts';
import { soakLines } from './soak-section.ts';
import { summaryLines } from './summary-section.ts';
import { warmUpLines } from './warm-up-section.ts';

/** A bench report as Markdown: the settings, every run, the summary and its targets, then each probe's section. */
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
    ...costCurveLines(report.results, label),
    ...soakLines(report.results.find((result) => result.soak !== null)?.soak ?? null),
    ...warmUpLines(report.results, label),
    ...machineLines(report.results, label),
    ...brokerRequestLines(report.results, label),
    ...replyFetchLines(report.results, label),
    ...report.results.flatMap((result) =>
      profileLines(label(result), result.profiles ?? [], result.splitSampler),
    ),
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
