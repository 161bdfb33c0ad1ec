import type { Answer } from '../../observe/traffic.ts';
import {
  changeFigures,
  duringChanges,
  largest,
  p99,
  slowAnswerMs,
  type Change,
  type ChangeFigures,
} from '../../report/figures.ts';
import { isOutage } from '../../report/verdict.ts';
import type { Target } from '../scenario.ts';

/** scale, rolling: p99 while a change is under way. */
const CHANGE_P99_MS = 1_000;

/** What clients saw of each change, an answer over `slowAnswerMs` counting as noticed. */
export function figuresOf(load: readonly Answer[], changes: readonly Change[]): ChangeFigures[] {
  return changeFigures(load, changes, slowAnswerMs(load, changes));
}

/** The longest any change took to be answered promptly again. */
export function slowestRecovery(figures: readonly ChangeFigures[]): number {
  return largest(figures.map(({ recoveredAfterMs }) => recoveredAfterMs));
}

/** A change clients should not notice (scale, rolling): nothing failed, and a low p99 meanwhile. */
export function unnoticedTargets(load: readonly Answer[], changes: readonly Change[]): Target[] {
  const outages = load.filter(isOutage).length;
  const during = duringChanges(load, changes);
  const changeP99 = p99(during);
  return [
    {
      target: 'every request answered 200 or 4009 (no 503, no 504, no dropped connection)',
      met: outages === 0,
      measured: `${String(outages)} of ${String(load.length)} answered 503/504/none`,
    },
    {
      target: `p99 ≤ ${seconds(CHANGE_P99_MS)} during the changes`,
      met: changeP99 <= CHANGE_P99_MS,
      measured: `p99 ${String(changeP99)} ms over the ${String(during.length)} requests in flight during them`,
    },
  ];
}

export function seconds(ms: number): string {
  return `${String(ms / 1_000)} s`;
}
