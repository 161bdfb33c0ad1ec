import { percentile } from '#tooling/statistics/percentile.ts';
import { isOutage } from './verdict.ts';
import type { Answer } from '../observe/traffic.ts';

/** One change made while the load ran: a fault, a scaling step, one step of a rolling update. */
export interface Change {
  name: string;
  at: number;
  /** When the change was complete: the new process ready, the group stable again, the broker back. */
  doneAt: number;
}

/** An answer slower than this is counted as a client noticing the change (but see slowAnswerMs). */
export const SLOW_MS = 1_000;
/** The answers that end this long before the first change tell how the load was answered before. */
const BEFORE_MS = 10_000;

/**
 * How long an answer must take to count as a client noticing a change: SLOW_MS, or twice the p99
 * of the answers that ended in the 10 s before the first change when that is more. On a machine
 * that the load saturates before any fault (two cores running three brokers answered at p99
 * 1.4 s, median 0.8 s), a 1 s answer is how it always answers, not a change noticed.
 */
export function slowAnswerMs(load: readonly Answer[], changes: readonly Change[]): number {
  const first = changes[0]?.at;
  if (first === undefined) return SLOW_MS;
  const before = load.filter(({ endedAt }) => endedAt >= first - BEFORE_MS && endedAt < first);
  return Math.max(SLOW_MS, 2 * p99(before));
}

export interface ChangeFigures {
  change: Change;
  /** The requests that ended between this change and the next (see `windowOf`). */
  answers: Answer[];
  requests: number;
  /** Of them, answered 503/504 or not at all. */
  failed: number;
  longestMs: number;
  /**
   * From the change until the last of its requests that failed or took longer than `slowMs`
   * ended: after that, clients were answered promptly again (0 when none was).
   */
  recoveredAfterMs: number;
  /** The 99th percentile of the answers in flight while the change was under way. */
  p99Ms: number;
}

/** What clients saw of each change, from the load's answers; an answer over `slowMs` is noticed. */
export function changeFigures(
  load: readonly Answer[],
  changes: readonly Change[],
  slowMs: number,
): ChangeFigures[] {
  return changes.map((change, index) => {
    const hit = windowOf(load, changes, index);
    const noticed = hit.filter((answer) => isOutage(answer) || durationOf(answer) > slowMs);
    return {
      change,
      answers: hit,
      requests: hit.length,
      failed: hit.filter(isOutage).length,
      longestMs: largest(hit.map(durationOf)),
      recoveredAfterMs: largest(noticed.map(({ endedAt }) => endedAt - change.at)),
      p99Ms: p99(duringChanges(load, [change])),
    };
  });
}

/**
 * The answers a change may have touched: those that ended after it began and before the next one
 * began. A request that fails after the next change began is that one's, wherever it started.
 */
function windowOf(load: readonly Answer[], changes: readonly Change[], index: number): Answer[] {
  const from = changes[index]?.at ?? Infinity;
  const to = changes[index + 1]?.at ?? Infinity;
  return load.filter(({ endedAt }) => endedAt >= from && endedAt < to);
}

/** The answers in flight at some moment while one of `changes` was under way. */
export function duringChanges(load: readonly Answer[], changes: readonly Change[]): Answer[] {
  return load.filter(({ startedAt, endedAt }) =>
    changes.some(({ at, doneAt }) => endedAt >= at && startedAt <= doneAt),
  );
}

export function durationOf({ startedAt, endedAt }: Answer): number {
  return endedAt - startedAt;
}

/** The 99th percentile of the answers' durations in ms; 0 when there are none. */
export function p99(answers: readonly Answer[]): number {
  if (answers.length === 0) return 0;
  return percentile(
    answers.map(durationOf).toSorted((a, b) => a - b),
    99,
  );
}

/** The largest of `values`, 0 when there are none (a spread of 100,000s overflows the stack). */
export function largest(values: readonly number[]): number {
  return values.reduce((most, value) => Math.max(most, value), 0);
}
