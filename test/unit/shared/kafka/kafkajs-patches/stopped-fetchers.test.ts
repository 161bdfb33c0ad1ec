import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import {
  STOPPED_FETCH_PAUSE_MS,
  pauseFetchersAfterStop,
} from '#shared/kafka/kafkajs-patches/stopped-fetchers.ts';

const require = createRequire(import.meta.url);
const { prototype } = require('kafkajs/src/consumer/runner.js') as {
  prototype: { fetch(this: object, nodeId: number): Promise<unknown[]> };
};

/** The parts of kafkajs's consumer Runner its fetch touches, answering one batch per fetch. */
function runner(running: boolean) {
  const fetched: number[] = [];
  return {
    running,
    fetched,
    logger: { debug: () => undefined },
    consumerGroup: {
      groupId: 'writers',
      memberId: 'm-1',
      fetch: (nodeId: number) => {
        fetched.push(nodeId);
        return Promise.resolve([{ topic: 'plants.create', partition: 0 }]);
      },
    },
    instrumentationEmitter: { emit: () => undefined },
    heartbeat: () => Promise.resolve(),
  };
}

describe('kafkajs fetchers after their consumer stopped', () => {
  pauseFetchersAfterStop();

  it('When a stopped runner is asked for a fetch, then it answers nothing only after a pause, so a fetcher asking again and again lets timers and I/O run', async () => {
    const stopped = runner(false);
    const startedAt = performance.now();
    let timerRan = false;
    setTimeout(() => {
      timerRan = true;
    }, 0);

    await expect(prototype.fetch.call(stopped, 1)).resolves.toEqual([]);

    expect(timerRan).toBe(true);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(STOPPED_FETCH_PAUSE_MS - 1);
    expect(stopped.fetched).toEqual([]);
  });

  it('When a running runner is asked for a fetch, then it fetches from the broker as before', async () => {
    const running = runner(true);

    await expect(prototype.fetch.call(running, 1)).resolves.toHaveLength(1);
    expect(running.fetched).toEqual([1]);
  });
});
