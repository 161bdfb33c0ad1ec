import { setTimeout as sleep } from 'node:timers/promises';
import { prototypeToPatch } from './version-guard.ts';

/** What this module uses of kafkajs's internal consumer Runner (src/consumer/runner.js). */
interface Runner {
  running: boolean;
  fetch: (this: Runner, nodeId: number) => Promise<unknown[]>;
}

/**
 * How long a fetch asked of a stopped runner waits before it answers nothing.
 * @internal Exported because the patch's unit test waits for it.
 */
export const STOPPED_FETCH_PAUSE_MS = 100;

/**
 * kafkajs 2.2.4 can leave a fetcher running after its consumer stops: when the brokers change (one
 * was killed) as the consumer stops, the fetch manager stops the old fetchers and then starts new
 * ones, which nobody stops. Each asks the stopped runner for a fetch, gets none at once and asks
 * again, in a loop of promises that never yields to I/O or timers: the process spins at 100 % of
 * a core and does nothing else (a test worker hung so, in the coordinator test that kills a
 * broker).
 *
 * From here on, for every kafkajs consumer in the process: a fetch asked of a stopped runner answers
 * nothing, as before, but only after STOPPED_FETCH_PAUSE_MS, so such a fetcher asks ten times a
 * second instead of starving the process. Failing the fetch instead, to end the fetcher, turned
 * a consumer's crash while its broker was down into one kafkajs does not restart from.
 */
export function pauseFetchersAfterStop(): void {
  const prototype = prototypeToPatch(
    'src/consumer/runner.js',
    'shared/kafka/kafkajs-patches/stopped-fetchers.ts',
  ) as Runner | undefined;
  if (prototype === undefined) return;
  const { fetch } = prototype;
  prototype.fetch = async function (this: Runner, nodeId) {
    if (!this.running) {
      await sleep(STOPPED_FETCH_PAUSE_MS);
      return [];
    }
    return fetch.call(this, nodeId);
  };
}
