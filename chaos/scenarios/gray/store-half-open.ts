import { longestSilentPartition, seconds } from '../../report/gray-figures.ts';
import { isOutage } from '../../report/verdict.ts';
import type { GrayScenario } from '../scenario.ts';
import { provedPartlySilent } from './fault-proofs.ts';
import { each, FAULT_MS, GRAY_WRITERS } from './steps.ts';
import { phases } from './targets.ts';

/** socketTimeoutMS (3 s) plus a retry on another connection, with room. */
const STALLED_OPERATION_MS = 10_000;
const LAST_504_MS = 20_000;

/** 30 % of the store connections stall: no answer, no reset. */
export const storeHalfOpen: GrayScenario = {
  name: 'store-half-open',
  gray: true,

  async steps({ links, change }) {
    const stores = GRAY_WRITERS.map((name) => links.store(name));
    await change('30 % of store connections stall (no answer, no reset)', () =>
      each(stores, async (store) => {
        await store.add({
          type: 'timeout',
          stream: 'downstream',
          toxicity: 0.3,
          attributes: { timeout: 0 },
        });
        await provedPartlySilent(storeHalfOpen.name, 'a writer’s path to the store', store);
      }),
    );
    await change('heal every path', () => each(stores, (store) => store.heal()), FAULT_MS);
  },

  targets(input) {
    const { cut } = phases(input);
    const last = cut.from + LAST_504_MS;
    const late = input.load.filter((answer) => isOutage(answer) && answer.endedAt > last);
    const silent = longestSilentPartition(input.load, input.partitionOf, cut);
    return [
      {
        target: `no 503/504 later than ${seconds(LAST_504_MS)} after the fault starts`,
        met: late.length === 0,
        measured: `${String(late.length)} later`,
      },
      {
        target: `a stalled store operation gives up (socketTimeoutMS 3 s) and is retried: no partition without an answered create for over ${seconds(STALLED_OPERATION_MS)} during the fault`,
        met: silent.ms <= STALLED_OPERATION_MS,
        measured: `longest ${seconds(silent.ms)} (partition ${String(silent.partition)})`,
      },
    ];
  },
};
