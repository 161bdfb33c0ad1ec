import {
  changeFigures,
  durationOf,
  largest,
  SLOW_MS,
  slowAnswerMs,
  type Change,
} from './figures.ts';
import type { Target } from '../scenarios/scenario.ts';
import type { LogEvent } from '../observe/timeline.ts';
import type { Answer } from '../observe/traffic.ts';
import { FINDING_KINDS, type Finding } from './verdict.ts';

export interface RunReport {
  answers: readonly Answer[];
  changes: readonly Change[];
  findings: readonly Finding[];
  targets: readonly Target[];
  loadStartedAt: number;
  loadSeconds: number;
  /** The command partition of a request. */
  partitionOf: (answer: Answer) => number;
  /** The writers' group's rebalances, from the coordinator's log. */
  rebalances: readonly LogEvent[];
}

/** The run's figures as printed lines: answers, each change, the verdict, the targets. */
export function reportLines(run: RunReport): string[] {
  const load = run.answers.filter(({ phase }) => phase === 'load');
  const slowMs = slowAnswerMs(load, run.changes);
  const tally = new Map<string, number>();
  for (const answer of run.answers) {
    const label = `${answer.phase} ${answer.failure ?? `${String(answer.status)}${answer.error === undefined ? '' : `/${String(answer.error)}`}`}`;
    tally.set(label, (tally.get(label) ?? 0) + 1);
  }
  const lines = [
    `creates under load: ${String(load.length)} in ${run.loadSeconds.toFixed(0)} s`,
    ...[...tally].sort().map(([label, count]) => `  ${label}: ${String(count)}`),
    `slowest answer: ${String(largest(load.map(durationOf)))} ms`,
    '',
    `changes (their requests: those that ended before the next change; failed: 503, 504 or no answer; recovered: when the last of them that failed or took over ${slowLabel(slowMs)} ended):`,
  ];
  changeFigures(load, run.changes, slowMs).forEach((figures, index) => {
    const { change } = figures;
    const next = run.changes[index + 1]?.at ?? Infinity;
    lines.push(
      `  +${seconds(change.at - run.loadStartedAt)} ${change.name}: done in ${seconds(change.doneAt - change.at)}; ` +
        `${String(figures.requests)} requests, ${String(figures.failed)} failed, longest ${String(figures.longestMs)} ms, ` +
        `p99 during it ${String(figures.p99Ms)} ms, recovered after ${seconds(figures.recoveredAfterMs)}`,
      `    longest answer by partition: ${longestByPartition(figures.answers, run.partitionOf)}`,
      ...run.rebalances
        .filter(({ at }) => at >= change.at - 500 && at < next)
        .slice(0, 12)
        .map(({ at, text }) => `    ${signedSeconds(at - change.at)} ${text.slice(0, 150)}`),
    );
  });
  const counts = new Map<string, number>();
  for (const { kind } of run.findings) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  lines.push('', 'checked against the store:');
  for (const kind of FINDING_KINDS) lines.push(`  ${kind}: ${String(counts.get(kind) ?? 0)}`);
  for (const finding of run.findings.slice(0, 20))
    lines.push(`  ${finding.kind} ${finding.id.toString()}: ${finding.detail}`);
  if (run.targets.length > 0) {
    lines.push('', 'targets:');
    for (const { target, met, measured } of run.targets)
      lines.push(`  ${met ? 'met   ' : 'MISSED'} ${target}: ${measured}`);
  }
  return lines;
}

function longestByPartition(
  answers: readonly Answer[],
  partitionOf: (answer: Answer) => number,
): string {
  const longest = new Map<number, number>();
  for (const answer of answers) {
    const partition = partitionOf(answer);
    longest.set(partition, Math.max(longest.get(partition) ?? 0, durationOf(answer)));
  }
  return [...longest]
    .sort(([a], [b]) => a - b)
    .map(([partition, ms]) => `p${String(partition)} ${String(ms)} ms`)
    .join(', ');
}

function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(1)} s`;
}

function signedSeconds(ms: number): string {
  return `${ms < 0 ? '-' : '+'}${(Math.abs(ms) / 1_000).toFixed(2)} s`;
}

function slowLabel(slowMs: number): string {
  if (slowMs <= SLOW_MS) return seconds(slowMs);
  return `${seconds(slowMs)}, twice the p99 of the 10 s before the first change`;
}
