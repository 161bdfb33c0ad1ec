import type { LogEvent } from '../observe/timeline.ts';
import type { ProcessSample, Sample } from '../observe/probe.ts';
import type { ServiceLogLine } from '../observe/service-logs.ts';
import { isConclusive, type Answer } from '../observe/traffic.ts';

export interface Window {
  from: number;
  to: number;
}

export function endedWithin(load: readonly Answer[], { from, to }: Window): Answer[] {
  return load.filter(({ endedAt }) => endedAt >= from && endedAt < to);
}

/** Creates answered 200 or 4009 per second. */
export function answeredPerSecond(load: readonly Answer[], window: Window): number {
  const seconds = (window.to - window.from) / 1_000;
  return seconds <= 0 ? 0 : endedWithin(load, window).filter(isConclusive).length / seconds;
}

/** How long after `from` the first sample for which `holds` is true was taken; undefined if none. */
export function firstSampleAfter(
  samples: readonly Sample[],
  from: number,
  holds: (sample: Sample) => boolean,
): number | undefined {
  const found = samples.find((sample) => sample.at >= from && holds(sample));
  return found === undefined ? undefined : found.at - from;
}

export function readinessOf(sample: Sample, process: string): ProcessSample['ready'] | undefined {
  return sample.processes[process]?.ready;
}

/** The rebalances the coordinator began within `window`. */
export function rebalancesWithin(rebalances: readonly LogEvent[], { from, to }: Window): number {
  return rebalances.filter(
    ({ at, text }) => at >= from && at < to && text.includes('Preparing to rebalance'),
  ).length;
}

/** How long after `from` the coordinator first logged `text`; undefined if it did not. */
export function firstEventAfter(
  events: readonly LogEvent[],
  from: number,
  text: string,
): number | undefined {
  const found = events.find(({ at, text: line }) => at >= from && line.includes(text));
  return found === undefined ? undefined : found.at - from;
}

/** The processes some sample found exited. */
export function exitedProcesses(samples: readonly Sample[]): string[] {
  const exited = new Set<string>();
  for (const { processes } of samples)
    for (const [name, { running }] of Object.entries(processes)) if (!running) exited.add(name);
  return [...exited];
}

/** The largest RSS of `process` within `during` over its mean within `before`; undefined without samples. */
export function rssGrowth(
  samples: readonly Sample[],
  process: string,
  before: Window,
  during: Window,
): number | undefined {
  const rss = ({ from, to }: Window) =>
    samples
      .filter(({ at }) => at >= from && at < to)
      .flatMap(({ processes }) => processes[process]?.rssKb ?? []);
  const earlier = rss(before);
  const later = rss(during);
  if (earlier.length === 0 || later.length === 0) return undefined;
  const mean = earlier.reduce((sum, kb) => sum + kb, 0) / earlier.length;
  return Math.max(...later) / mean;
}

/** The most requests to `gateway` that were waiting at once within `window`. */
export function mostInFlight(load: readonly Answer[], gateway: number, window: Window): number {
  const edges = load
    .filter((answer) => answer.gateway === gateway)
    .filter(({ startedAt, endedAt }) => endedAt >= window.from && startedAt < window.to)
    .flatMap(({ startedAt, endedAt }) => [
      { at: startedAt, step: 1 },
      { at: endedAt, step: -1 },
    ])
    .toSorted((a, b) => a.at - b.at || a.step - b.step);
  let waiting = 0;
  let most = 0;
  for (const { step } of edges) {
    waiting += step;
    most = Math.max(most, waiting);
  }
  return most;
}

/** The longest time within `window` in which some partition had no create answered 200 or 4009. */
export function longestSilentPartition(
  load: readonly Answer[],
  partitionOf: (answer: Answer) => number,
  window: Window,
): { partition: number; ms: number } {
  const ends = new Map<number, number[]>();
  for (const answer of endedWithin(load, window).filter(isConclusive)) {
    const partition = partitionOf(answer);
    ends.set(partition, [...(ends.get(partition) ?? []), answer.endedAt]);
  }
  let longest = { partition: -1, ms: 0 };
  for (const [partition, times] of ends) {
    const edges = [window.from, ...times.toSorted((a, b) => a - b), window.to];
    for (let index = 1; index < edges.length; index++) {
      const ms = (edges[index] ?? 0) - (edges[index - 1] ?? 0);
      if (ms > longest.ms) longest = { partition, ms };
    }
  }
  return longest;
}

/** How many times a partition's committed offset was seen lower than in an earlier sample. */
export function offsetsMovedBack(samples: readonly Sample[]): number {
  const highest = new Map<string, bigint>();
  let movedBack = 0;
  for (const { committed } of samples) {
    for (const [partition, offset] of Object.entries(committed ?? {})) {
      if (!/^\d+$/.test(offset)) continue;
      const value = BigInt(offset);
      const before = highest.get(partition);
      if (before !== undefined && value < before) movedBack++;
      else highest.set(partition, value);
    }
  }
  return movedBack;
}

/** Lines of the services' logs within `window` whose message matches `pattern`. */
export function logLinesWithin(
  lines: readonly ServiceLogLine[],
  pattern: RegExp,
  { from, to }: Window,
  process?: string,
): ServiceLogLine[] {
  return lines.filter(
    (line) =>
      line.at >= from &&
      line.at < to &&
      pattern.test(line.msg) &&
      (process === undefined || line.process === process),
  );
}

export function seconds(ms: number | undefined): string {
  return ms === undefined ? 'never' : `${(ms / 1_000).toFixed(1)} s`;
}

/** Each time a process's readiness changed, starting with what the first sample saw. */
export function readinessChanges(
  samples: readonly Sample[],
): { at: number; process: string; ready: ProcessSample['ready'] | 'exited' }[] {
  const last = new Map<string, string>();
  const changes: { at: number; process: string; ready: ProcessSample['ready'] | 'exited' }[] = [];
  for (const { at, processes } of samples)
    for (const [process, { running, ready }] of Object.entries(processes)) {
      const now = running ? ready : 'exited';
      if (last.get(process) !== now) changes.push({ at, process, ready: now });
      last.set(process, now);
    }
  return changes;
}
