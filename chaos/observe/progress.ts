import { elapsed, type ProgressLine } from '#tooling/progress/progress-line.ts';
import { runningP99 } from '#tooling/statistics/running-p99.ts';
import type { Answer } from './traffic.ts';
import { isOutage } from '../report/verdict.ts';

/**
 * Shows, once a second while the load runs, how it is going: the phase (the last change made),
 * the time since the load started, answers in the last second, the p99 so far and the requests
 * failed so far (503, 504 or no answer). Returns the stop.
 */
export function showChaosProgress(
  line: ProgressLine,
  answers: readonly Answer[],
  { startedAt, phase }: { startedAt: number; phase: () => string },
): () => void {
  const durations = runningP99();
  let counted = 0;
  let failed = 0;
  const timer = setInterval(() => {
    const fresh = answers.slice(counted);
    counted = answers.length;
    for (const answer of fresh) {
      durations.record(answer.endedAt - answer.startedAt);
      if (isOutage(answer)) failed++;
    }
    line.update(
      `  ${phase()}: ${elapsed(Date.now() - startedAt)}, ${String(fresh.length)} answered/s, p99 so far ${String(Math.round(durations.p99Ms()))} ms, ${String(failed)} failed`,
    );
  }, 1_000);
  return () => {
    clearInterval(timer);
    line.end();
  };
}
