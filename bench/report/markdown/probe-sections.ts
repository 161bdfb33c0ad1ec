import { createsAnswered } from '../../closed-loop/load.ts';
import type { ProfileSummary } from '../../probes/cpu-profile.ts';
import type { ReplyFetches } from '../../probes/reply-fetches.ts';
import type { VariantResult } from '../results.ts';

/** Busy, I/O wait and stolen CPU over each run, and the load generator's own share. */
export function machineLines(
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

/** What each create cost the brokers, in requests (Produce, Fetch, OffsetCommit, …). */
export function brokerRequestLines(
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

/**
 * Per create answered: the reply records and bytes each gateway fetched and all of them together
 * (1 when every gateway reads a partition of its own), and the gateways' CPU.
 */
export function replyFetchLines(
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

/**
 * Self time of each Node process of a run, by area and by function (`--cpu-prof`), or why there
 * is none when perf failed while it recorded.
 */
export function profileLines(
  run: string,
  profiles: readonly ProfileSummary[],
  sampler?: string,
): string[] {
  if (sampler?.startsWith('perf failed') === true)
    return [`CPU profile of ${run}: none, ${sampler}.`, ''];
  const shares = (list: ProfileSummary['byArea']) =>
    list.map(({ name, percent }) => `${name} ${percent.toFixed(1)} %`).join('; ');
  return profiles.flatMap(({ process, file, busySamples, byArea, byFunction }) => [
    `CPU profile of ${run}, ${process} (${String(busySamples)} busy samples; \`${file}\`):`,
    `- by area: ${shares(byArea)}`,
    `- by function: ${shares(byFunction)}`,
    '',
  ]);
}
