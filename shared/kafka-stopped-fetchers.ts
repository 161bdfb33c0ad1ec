import { kafkajsPrototype } from './kafkajs-internals.ts';

/** What this module uses of kafkajs's internal consumer Runner (src/consumer/runner.js). */
interface Runner {
  running: boolean;
  fetch: (this: Runner, nodeId: number) => Promise<unknown[]>;
}

/** Ends a fetcher that kafkajs started after its consumer was told to stop. */
export class FetcherAfterStopError extends Error {
  constructor() {
    super('a fetcher ran after its consumer stopped');
    this.name = 'FetcherAfterStopError';
  }
}

let installed = false;

/**
 * kafkajs 2.2.4 can leave a fetcher running after its consumer stops: when the brokers change (one
 * was killed) as the consumer stops, the fetch manager stops the old fetchers and then starts new
 * ones, which nobody stops. Each asks the stopped runner for a fetch, gets none at once and asks
 * again, in a loop of promises that never yields to I/O or timers: the process spins at 100 % of
 * a core and does nothing else (a test worker hung so, in the coordinator test that kills a
 * broker).
 *
 * From here on, for every kafkajs consumer in the process: a fetch asked of a stopped runner fails,
 * which ends that fetcher; the fetch manager stops the others and gives up, and the runner, no
 * longer running, exits as it does on a stop.
 */
export function endFetchersAfterStop(): void {
  if (installed) return;
  installed = true;
  const prototype = kafkajsPrototype(
    'src/consumer/runner.js',
    'shared/kafka-stopped-fetchers.ts',
  ) as Runner;
  const { fetch } = prototype;
  prototype.fetch = function (this: Runner, nodeId) {
    if (!this.running) return Promise.reject(new FetcherAfterStopError());
    return fetch.call(this, nodeId);
  };
}
