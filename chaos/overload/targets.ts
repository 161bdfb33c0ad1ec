import { percentile } from '#tooling/statistics/percentile.ts';
import type { Answer } from '../observe/traffic.ts';
import { durationOf, largest } from '../report/figures.ts';
import type { Target } from '../scenarios/scenario.ts';

/** One rate offered on schedule for a while, and every answer to it. */
export interface PhaseRun {
  name: string;
  /** Requests a second offered. */
  rate: number;
  seconds: number;
  /** The overload phases (2T, 4T) hold the goodput and answer targets; the last one recovers. */
  overload: boolean;
  /** The share of T its goodput must reach in every window (overload phases). */
  goodputShare?: number;
  /** When its first request was sent. */
  startedAt: number;
  answers: readonly Answer[];
}

/** The windows the targets are judged in, from this long after each phase starts. */
export const WINDOW_MS = 5_000;
const SETTLING_MS = 5_000;
/** Overload: every request is answered within this, 2xx or 503 with Retry-After. */
const ANSWER_WITHIN_MS = 1_000;
const P99_2XX_MS = 250;
/** From SETTLING_MS after the overload ends. */
const RECOVERED_P99_MS = 50;
/** Below this share of the rate offered in a window, the generator fell behind: the run says so. */
const ON_SCHEDULE_SHARE = 0.95;

export interface Window {
  from: number;
  answers: readonly Answer[];
}

const isOk = ({ status }: Answer) => status >= 200 && status < 300;
const isShed = (answer: Answer) => answer.status === 503 && answer.retryAfter !== undefined;

/** The whole 5-s windows of a phase from SETTLING_MS on, by when each request was sent. */
export function windowsOf(phase: PhaseRun): Window[] {
  const windows: Window[] = [];
  for (let from = SETTLING_MS; from + WINDOW_MS <= phase.seconds * 1_000; from += WINDOW_MS) {
    const start = phase.startedAt + from;
    windows.push({
      from,
      answers: phase.answers.filter(
        ({ startedAt }) => startedAt >= start && startedAt < start + WINDOW_MS,
      ),
    });
  }
  return windows;
}

/** Per second of a window: requests sent, answered 2xx, refused with 503. */
export function flowOf(answers: readonly Answer[], seconds: number) {
  return {
    offered: answers.length / seconds,
    goodput: answers.filter(isOk).length / seconds,
    shed: answers.filter(isShed).length / seconds,
  };
}

export function p99Of(answers: readonly Answer[]): number {
  return percentile(
    answers.map(durationOf).sort((a, b) => a - b),
    99,
  );
}

/** What the overload scenario promises, from T and every phase's answers (docs/how-to/run-chaos.md). */
export function overloadTargets(throughput: number, phases: readonly PhaseRun[]): Target[] {
  const targets: Target[] = [];
  const windowSeconds = WINDOW_MS / 1_000;
  for (const phase of phases) {
    const windows = windowsOf(phase);
    const flows = windows.map(({ answers }) => flowOf(answers, windowSeconds));
    const lowest = (pick: (flow: ReturnType<typeof flowOf>) => number) =>
      Math.min(...flows.map(pick));
    targets.push({
      target: `${phase.name}: the load kept its schedule (≥ ${percent(ON_SCHEDULE_SHARE)} of ${String(phase.rate)}/s sent in every window)`,
      met: lowest(({ offered }) => offered) >= ON_SCHEDULE_SHARE * phase.rate,
      measured: `lowest window ${lowest(({ offered }) => offered).toFixed(0)}/s`,
    });
    const settled = windows.flatMap(({ answers }) => answers);
    if (!phase.overload) {
      const p99 = p99Of(settled);
      targets.push({
        target: `${phase.name}: p99 ≤ ${String(RECOVERED_P99_MS)} ms from ${String(SETTLING_MS / 1_000)} s after the overload`,
        met: p99 <= RECOVERED_P99_MS && settled.every(isOk),
        measured: `p99 ${p99.toFixed(1)} ms; ${String(settled.filter((answer) => !isOk(answer)).length)} not 2xx`,
      });
      continue;
    }
    const share = phase.goodputShare ?? 0;
    const goodput = lowest(({ goodput: each }) => each);
    targets.push({
      target: `${phase.name}: goodput ≥ ${percent(share)} of T (${(share * throughput).toFixed(0)}/s) in every window from ${String(SETTLING_MS / 1_000)} s`,
      met: goodput >= share * throughput,
      measured: `lowest window ${goodput.toFixed(0)}/s (${percent(goodput / throughput)} of T)`,
    });
    const late = (answers: readonly Answer[]) =>
      answers.filter((answer) => durationOf(answer) > ANSWER_WITHIN_MS);
    const other = settled.filter((answer) => !isOk(answer) && !isShed(answer));
    const lateBefore = late(phase.answers).length - late(settled).length;
    targets.push({
      target: `${phase.name}: every request answered within ${String(ANSWER_WITHIN_MS)} ms from ${String(SETTLING_MS / 1_000)} s, 2xx or 503 with Retry-After`,
      met: late(settled).length === 0 && other.length === 0,
      measured: `slowest ${largest(settled.map(durationOf)).toFixed(0)} ms; ${String(late(settled).length)} later (${String(lateBefore)} in the first ${String(SETTLING_MS / 1_000)} s); other answers: ${statusTally(other)}`,
    });
    const p99s = windows.map(({ from, answers }) => ({ from, p99: p99Of(answers.filter(isOk)) }));
    const worst = p99s.reduce((a, b) => (b.p99 > a.p99 || Number.isNaN(a.p99) ? b : a), {
      from: 0,
      p99: Number.NaN,
    });
    targets.push({
      target: `${phase.name}: p99 of the 2xx ≤ ${String(P99_2XX_MS)} ms in every window from ${String(SETTLING_MS / 1_000)} s`,
      met: p99s.every(({ p99 }) => p99 <= P99_2XX_MS),
      measured: `highest window p99 ${worst.p99.toFixed(1)} ms (from ${String(worst.from / 1_000)} s); all windows together ${p99Of(settled.filter(isOk)).toFixed(1)} ms`,
    });
  }
  return targets;
}

/** Answers by status (or failure), e.g. "504 ×3, no answer ×1"; "none" when empty. */
export function statusTally(answers: readonly Answer[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers) {
    const label =
      answer.status === 0
        ? 'no answer'
        : answer.status === 503
          ? '503 without Retry-After'
          : String(answer.status);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return counts.size === 0
    ? 'none'
    : [...counts].map(([label, count]) => `${label} ×${String(count)}`).join(', ');
}

function percent(share: number): string {
  return `${(share * 100).toFixed(0)} %`;
}
