import { isOutage } from '../../report/verdict.ts';
import {
  answeredPerSecond,
  firstSampleAfter,
  readinessOf,
  seconds,
} from '../../report/gray-figures.ts';
import type { GrayScenario } from '../scenario.ts';
import { provedSilent } from './fault-proofs.ts';
import { FAULT_MS, FAULTED_WRITER } from './steps.ts';
import { backInFullGroup, GRAY_LIMITS, phases, rebalanceTargets, within } from './targets.ts';

/** From this long after the cut on: no 504 and at least half the creates per second. */
const TAKEN_OVER_MS = 15_000;
const BACK_AFTER_HEAL_MS = 15_000;

/** One writer's path to the store black-holed: the other writers take its partitions over. */
export const storeCutOne: GrayScenario = {
  name: 'store-cut-one',
  gray: true,

  async steps({ links, change }) {
    const store = links.store(FAULTED_WRITER);
    const path = `${FAULTED_WRITER}'s path to the store`;
    await change(`black-hole ${path}`, async () => {
      await store.blackHole();
      await provedSilent(storeCutOne.name, path, store);
    });
    await change(`heal ${FAULTED_WRITER}'s path`, () => store.heal(), FAULT_MS);
  },

  targets(input) {
    const { cut, heal, end } = phases(input);
    const takenOver = cut.from + TAKEN_OVER_MS;
    const late = input.load.filter((answer) => isOutage(answer) && answer.endedAt > takenOver);
    const before = answeredPerSecond(input.load, { from: input.loadStartedAt, to: cut.from });
    const after = answeredPerSecond(input.load, { from: takenOver, to: heal.from });
    const notReady = firstSampleAfter(
      input.samples,
      cut.from,
      (sample) => readinessOf(sample, FAULTED_WRITER) !== 'ready',
    );
    const back = firstSampleAfter(input.samples, heal.from, backInFullGroup);
    return [
      within(`${FAULTED_WRITER} not ready`, notReady, GRAY_LIMITS.notReadyMs, 'the cut'),
      {
        target: `no 503/504 later than ${seconds(TAKEN_OVER_MS)} after the cut`,
        met: late.length === 0,
        measured: `${String(late.filter(({ endedAt }) => endedAt < heal.from).length)} before the heal, ${String(late.filter(({ endedAt }) => endedAt >= heal.from).length)} after it`,
      },
      {
        target: `creates answered per second from ${seconds(TAKEN_OVER_MS)} after the cut ≥ 50 % of before it`,
        met: after >= 0.5 * before,
        measured: `${after.toFixed(0)}/s against ${before.toFixed(0)}/s`,
      },
      within(
        `${FAULTED_WRITER} ready and the group stable with 3 members`,
        back,
        BACK_AFTER_HEAL_MS,
        'the heal',
      ),
      ...rebalanceTargets(input, { cut, heal: { from: heal.from, to: end } }),
    ];
  },
};
