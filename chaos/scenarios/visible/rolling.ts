import type { VisibleScenario } from '../scenario.ts';
import { unnoticedTargets } from './targets.ts';

/** A rolling update of every gateway, then of every writer: the clients should not notice. */
export const rolling: VisibleScenario = {
  name: 'rolling',
  gray: false,
  writers: 3,
  gateways: 2,

  async steps({ fleet, change }) {
    for (const index of [0, 1]) {
      await change(`replace gateway ${String(index + 1)}`, () => fleet.rollGateway(index));
    }
    for (const round of [1, 2, 3]) {
      await change(`replace the oldest writer (${String(round)}/3)`, () => fleet.rollWriter(0));
    }
  },

  targets: ({ load, changes }) => unnoticedTargets(load, changes),
};
