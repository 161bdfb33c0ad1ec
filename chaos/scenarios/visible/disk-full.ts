import type { Answer } from '../../observe/traffic.ts';
import { durationOf, largest, type Change } from '../../report/figures.ts';
import { isOutage } from '../../report/verdict.ts';
import type { Target } from '../scenario.ts';
import { seconds } from './targets.ts';

/**
 * The longest a create may wait for its answer while a disk is full: the gateway's reply timeout
 * (5 s), and what a loaded 2-core machine adds to it.
 */
export const ANSWERED_WITHIN_MS = 6_500;
/** From the space back (the broker: from its restart) to a create answered 200 again. */
export const ANSWERED_AGAIN_MS = 60_000;
/**
 * How long the disk stays full: long enough for its alert to fire (PlantStoreStoreRefusesWrites
 * after 30 s of refused inserts; PlantStoreKafkaUnreachable a minute after the services noticed).
 */
export const FULL_FOR_MS = 90_000;

/**
 * What clients are promised while a data folder is full and after: it shows (creates answered
 * 503/504, or the run tested nothing), each answer comes within ANSWERED_WITHIN_MS and is
 * 200/4009/503/504, never a 500 nor a dropped connection, from the fill to the end of `recovery`;
 * and creates are answered 200 again within ANSWERED_AGAIN_MS of `recovery` starting.
 */
export function diskFullTargets(
  load: readonly Answer[],
  changes: readonly Change[],
  names: { fault: string; recovery: string },
): Target[] {
  const fault = changes.find(({ name }) => name === names.fault);
  const recovery = changes.find(({ name }) => name === names.recovery);
  if (fault === undefined || recovery === undefined)
    throw new Error(
      `a disk-full scenario makes the changes "${names.fault}" and "${names.recovery}"`,
    );
  const during = load.filter(
    ({ startedAt, endedAt }) => endedAt >= fault.at && startedAt <= recovery.doneAt,
  );
  const outages = during.filter(isOutage).length;
  const wrong = during.filter(
    (answer) => answer.failure !== undefined || (answer.status >= 500 && !isOutage(answer)),
  ).length;
  const longest = largest(during.map(durationOf));
  const againAfter =
    load
      .filter(({ status, endedAt }) => status === 200 && endedAt >= recovery.at)
      .reduce((first, { endedAt }) => Math.min(first, endedAt), Infinity) - recovery.at;
  return [
    {
      target: 'the full disk refuses creates: some answered 503/504 while it lasts',
      met: outages > 0,
      measured: `${String(outages)} of ${String(during.length)} answered 503/504`,
    },
    {
      target: `while it lasts, every create answered 200, 4009, 503 or 504 within ${seconds(ANSWERED_WITHIN_MS)} (no other 5xx, none unanswered)`,
      met: wrong === 0 && longest <= ANSWERED_WITHIN_MS,
      measured: `${String(wrong)} answered otherwise or not at all; longest ${String(longest)} ms`,
    },
    {
      target: `a create answered 200 within ${seconds(ANSWERED_AGAIN_MS)} of "${names.recovery}"`,
      met: againAfter <= ANSWERED_AGAIN_MS,
      measured: Number.isFinite(againAfter)
        ? `after ${(againAfter / 1_000).toFixed(1)} s`
        : 'no create answered 200 after it',
    },
  ];
}
