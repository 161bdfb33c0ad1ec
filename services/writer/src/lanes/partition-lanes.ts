import * as timers from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import { arrivalLinger } from '#shared/batching/arrival-linger.ts';
import { nextOffset, partitionKey } from '#shared/kafka/messages.ts';
import type { Logger } from '#shared/logger.ts';
import { waitFor, type StoreDistance } from '../store/store-distance.ts';
import { heapBytes } from './lane-queue.ts';
import { drop, lanePump, release, seek, type LanesShared } from './lane-runner.ts';
import { giveAway, newLane, type Lane, type LaneHandlers } from './lane-state.ts';
import { ARRIVAL_LINGER, MAX_FETCH_HOLD_MS, MAX_QUEUED_BYTES } from './lane-tuning.ts';

export interface LaneOptions {
  /** The longest an answered batch holds the next fetch with the arrival rate (ARRIVAL_LINGER); 0: never. */
  lingerMaxMs: number;
  /** Whether the store is far (store-distance.ts). */
  storeDistance: StoreDistance;
}

export interface PartitionLanes {
  /** Queues the batch on its partition's lane; resolves when kafkajs may fetch again. */
  accept(payload: EachBatchPayload): Promise<void>;
  /** After a rebalance: drops what waits for partitions given away, fetches the others past it. */
  assigned(partitionsByTopic: Record<string, number[]>): void;
  /** Takes no more batches, lets each lane finish the work in hand, drops what is queued. */
  stop(): Promise<void>;
}

/**
 * Answers each partition's commands in order on a lane of its own. kafkajs fetches again only
 * once every batch of its last fetch returned, so one slow batch (a reply topic that is gone, a
 * duplicate the store re-inserts one by one) held every other partition. Here a batch is queued
 * on its lane and its offset resolved; it holds the fetch loop until it is answered, as before,
 * but MAX_FETCH_HOLD_MS at most, and the lane takes what queued once it may (lane-queue.ts).
 * Lanes pause partitions while they hold MAX_QUEUED_BYTES. The constants are lane-tuning.ts's.
 *
 * While commands arrive fast enough to be worth waiting for (ARRIVAL_LINGER), an answered batch
 * holds kafkajs's fetch loop a few ms longer, so that the next fetch brings what arrived meanwhile;
 * a lane that answered several commands also waits BUSY_LINGER_MS before it takes what queued.
 *
 * A lane answers one work at a time while work is quick; once its newest has taken
 * OVERLAP_AFTER_MS, it takes the next beside it (MAX_ANSWERING at most), and a work that shares a
 * key with one before it waits for that one (key-order.ts). Works are handed to `answered` in
 * order, so offsets are committed only past commands answered. Work that fails stops the lane
 * from taking more; once its works in hand have settled, what is queued is dropped and the
 * partition is sought back to the first command of the first work that failed, so that nothing
 * is committed past it.
 */
export function partitionLanes(
  consumer: Pick<Consumer, 'seek'>,
  handlers: LaneHandlers,
  logger: Logger,
  { lingerMaxMs, storeDistance }: LaneOptions,
): PartitionLanes {
  const lanes = new Map<string, Lane>();
  const arrivals =
    lingerMaxMs > 0 ? arrivalLinger({ ...ARRIVAL_LINGER, maxMs: lingerMaxMs }) : undefined;
  /** Once a batch is answered: waits for more to arrive before kafkajs fetches again, if worth it. */
  const lingered = () => {
    const ms = arrivals?.waitMs() ?? 0;
    return ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : undefined;
  };
  /** The partitions of the last assignment; undefined until the first. */
  let owned: Record<string, number[]> | undefined;
  const stopping = new AbortController();
  const shared: LanesShared = { queuedBytes: 0, unsettled: new Set(), stopping: stopping.signal };
  const pump = lanePump(shared, consumer, handlers, logger, storeDistance);

  const laneOf = (topic: string, partition: number): Lane => {
    const key = partitionKey(topic, partition);
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = newLane(topic, partition);
      lanes.set(key, lane);
    }
    return lane;
  };

  return {
    accept(payload) {
      const { topic, partition, messages } = payload.batch;
      const [first, last] = [messages[0], messages.at(-1)];
      if (first === undefined || last === undefined || payload.isStale()) return Promise.resolve();
      // A fetch that was under way when the group rejoined can hand over a partition given away.
      if (owned !== undefined && !owned[topic]?.includes(partition)) return Promise.resolve();
      // Not taken, and so fetched again: not at once.
      if (stopping.signal.aborted) return sleep(MAX_FETCH_HOLD_MS);
      try {
        payload.resolveOffset(last.offset);
      } catch {
        // kafkajs's offsets no longer hold the topic: every partition of it was just given away.
        return Promise.resolve();
      }
      arrivals?.arrived(messages.length);
      const lane = laneOf(topic, partition);
      const heap = messages.reduce((total, message) => total + heapBytes(message), 0);
      shared.queuedBytes += heap;
      lane.next = nextOffset(last.offset);
      if (shared.queuedBytes > MAX_QUEUED_BYTES) lane.resume ??= payload.pause();
      const answered = new Promise<void>((done) => {
        lane.queue.push({ payload, messages: [...messages], bytes: heap, done });
      });
      pump(lane);
      return heldAtMost(answered.then(lingered), waitFor(storeDistance, MAX_FETCH_HOLD_MS));
    },
    assigned(partitionsByTopic) {
      owned = partitionsByTopic;
      for (const lane of lanes.values()) {
        const kept = partitionsByTopic[lane.topic]?.includes(lane.partition) ?? false;
        // An idle lane's last work may still wait for its commit.
        if (!kept) giveAway(lane);
        if (lane.flights.length === 0 && lane.queue.length === 0) continue;
        if (!kept) drop(shared, lane);
        else if (lane.next !== undefined) seek(consumer, logger, lane, lane.next);
      }
    },
    async stop() {
      stopping.abort();
      for (const lane of lanes.values()) {
        clearTimeout(lane.wake);
        release(shared, lane);
      }
      await Promise.all(shared.unsettled);
    },
  };
}

/**
 * `work`, or `ms`, whichever ends first. The timer goes as soon as the work ends: left to run out,
 * the timer of each quick batch woke the writer again for nothing, a wake-up that costs most at
 * low rates (docs/history/2026-12-03-figures-behind-the-comments.md).
 */
function heldAtMost(work: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = timers.setTimeout(resolve, ms);
    void work.then(() => {
      timers.clearTimeout(timer);
      resolve();
    });
  });
}
