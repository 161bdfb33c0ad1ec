import { rebalancesWithin } from '../../report/gray-figures.ts';
import type { GrayScenario } from '../scenario.ts';
import { provedSilent } from './fault-proofs.ts';
import { each, FAULT_MS, GRAY_WRITERS } from './steps.ts';
import { GRAY_LIMITS, noExits, phases, within } from './targets.ts';

/** Every writer's path to the store black-holed: nothing is stored until the heal. */
export const storeDownAll: GrayScenario = {
  name: 'store-down-all',
  gray: true,

  async steps({ links, change }) {
    const stores = GRAY_WRITERS.map((name) => links.store(name));
    await change('black-hole every writer’s path to the store', () =>
      each(stores, async (store) => {
        await store.blackHole();
        await provedSilent(storeDownAll.name, 'a writer’s path to the store', store);
      }),
    );
    await change('heal every path', () => each(stores, (store) => store.heal()), FAULT_MS);
  },

  targets(input) {
    const { cut, heal, end } = phases(input);
    const answeredAgain = input.load.find(
      ({ status, endedAt }) => status === 200 && endedAt >= heal.from,
    );
    const rebalances = rebalancesWithin(input.rebalances, { from: cut.from, to: end });
    return [
      noExits(input),
      {
        target: `at most ${String(GRAY_LIMITS.rebalancesPerChange)} rebalances of the group per outage`,
        met: rebalances <= GRAY_LIMITS.rebalancesPerChange,
        measured: `${String(rebalances)} from the outage to the end of the load`,
      },
      within(
        'a create answered 200',
        answeredAgain === undefined ? undefined : answeredAgain.endedAt - heal.from,
        GRAY_LIMITS.answeredAgainMs,
        'the heal',
      ),
    ];
  },
};
