import { changeFigures, durationOf, largest, SLOW_MS } from '../../report/figures.ts';
import {
  answeredPerSecond,
  endedWithin,
  logLinesWithin,
  seconds,
} from '../../report/gray-figures.ts';
import { isOutage } from '../../report/verdict.ts';
import type { GrayScenario } from '../scenario.ts';
import { provedSlow } from './fault-proofs.ts';
import { each, FAULT_MS, GRAY_WRITERS } from './steps.ts';
import { CONSUMER_RESTART, noExits, rssTargets, within } from './targets.ts';

const SLOWER_MS = 30_000;
/** 1 s each way makes a store round trip 2 s; each client waits on one. */
const STORE_ROUND_TRIP_MS = 2_000;
/** At 1 s each way, each writer reconnects to the store at most once in this long. */
const RECONNECT_EVERY_MS = 10_000;
const NORMAL_AFTER_HEAL_MS = 10_000;
const FALSE_STALL = /stopped checking the server|giving up its partitions/;

/** Every store connection slowed, 1 s each way then 3 s, then healed. */
export const storeSlow: GrayScenario = {
  name: 'store-slow',
  gray: true,

  async steps({ links, change }) {
    const stores = GRAY_WRITERS.map((name) => links.store(name));
    const latency = (ms: number) => ({ latency: ms });
    await change('1 s each way on every store connection', () =>
      each(stores, async (store) => {
        for (const stream of ['upstream', 'downstream'] as const)
          await store.add({
            type: 'latency',
            name: `slow_${stream}`,
            stream,
            attributes: latency(1_000),
          });
        await provedSlow(storeSlow.name, 'a writer’s path to the store', store, 2_000);
      }),
    );
    await change(
      '3 s each way on every store connection',
      () =>
        each(stores, async (store) => {
          for (const stream of ['upstream', 'downstream'])
            await store.update(`slow_${stream}`, { attributes: latency(3_000) });
          await provedSlow(storeSlow.name, 'a writer’s path to the store', store, 6_000);
        }),
      FAULT_MS,
    );
    await change('heal every path', () => each(stores, (store) => store.heal()), SLOWER_MS);
  },

  targets(input) {
    const [slow, slower, heal] = input.changes;
    if (slow === undefined || slower === undefined || heal === undefined)
      throw new Error('store-slow needs three changes: 1 s, 3 s, the heal');
    const first = { from: slow.at, to: slower.at };
    const answered = endedWithin(input.load, first);
    const outages = answered.filter(isOutage).length;
    const longest = largest(answered.map(durationOf));
    const rate = answeredPerSecond(input.load, first);
    const allowed = input.connections / (STORE_ROUND_TRIP_MS / 1_000);
    const restarts = logLinesWithin(input.serviceLogs, CONSUMER_RESTART, first);
    const stalls = logLinesWithin(input.serviceLogs, FALSE_STALL, first);
    const reconnects = logLinesWithin(input.serviceLogs, /store client reconnected/, first);
    const [healed] = changeFigures(input.load, [heal], SLOW_MS);
    return [
      {
        target: 'at 1 s: no 503/504',
        met: outages === 0,
        measured: `${String(outages)} of ${String(answered.length)}`,
      },
      {
        target: `at 1 s: every create answered within REPLY_TIMEOUT_MS (${seconds(input.replyTimeoutMs)})`,
        met: longest <= input.replyTimeoutMs,
        measured: `longest ${String(longest)} ms`,
      },
      {
        target: `at 1 s: ≥ 50 % of what the closed loop allows (${allowed.toFixed(0)}/s)`,
        met: rate >= 0.5 * allowed,
        measured: `${rate.toFixed(1)}/s`,
      },
      {
        target: `at 1 s: at most one store reconnect per writer per ${String(RECONNECT_EVERY_MS / 1_000)} s`,
        met:
          reconnects.length <= (GRAY_WRITERS.length * (first.to - first.from)) / RECONNECT_EVERY_MS,
        measured: `${String(reconnects.length)} "store client reconnected" lines`,
      },
      {
        target: 'at 1 s: no consumer restarts, no false "stalled" reconnects or give-ups',
        met: restarts.length === 0 && stalls.length === 0,
        measured: `${String(restarts.length)} restarts, ${String(stalls.length)} stall lines`,
      },
      noExits(input),
      ...rssTargets(input, GRAY_WRITERS, { from: slower.at, to: heal.at }),
      within(
        'normal (no 503/504 or answer over 1 s)',
        healed?.recoveredAfterMs,
        NORMAL_AFTER_HEAL_MS,
        'the heal',
      ),
    ];
  },
};
