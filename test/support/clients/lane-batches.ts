import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { vi } from 'vitest';
import { createLogger } from '#shared/logger.ts';
import type { LaneWork } from '#writer/lanes/lane-state.ts';
import { partitionLanes, type PartitionLanes } from '#writer/lanes/partition-lanes.ts';
import { NEAR_STORE, type StoreDistance } from '#writer/store/store-distance.ts';

// Batches as kafkajs hands them to eachBatch, and lanes whose work the test finishes: for the
// tests of the writer's partition lanes.

/**
 * A batch of commands at `offsets` on `partition`, as kafkajs hands it to eachBatch; each
 * command's lane key is its offset unless `keys` says otherwise.
 */
export function batchAt(partition: number, offsets: string[], valueBytes = 16, keys = offsets) {
  const resume = vi.fn();
  const payload = {
    batch: {
      topic: 'plants.create',
      partition,
      messages: offsets.map(
        (offset, index) =>
          ({
            offset,
            key: Buffer.from(keys[index] ?? offset),
            value: Buffer.alloc(valueBytes),
          }) as unknown as KafkaMessage,
      ),
    },
    isRunning: () => true,
    isStale: vi.fn(() => false),
    resolveOffset: vi.fn(),
    pause: vi.fn(() => resume),
  };
  return { payload: payload as unknown as EachBatchPayload, ...payload, resume };
}

const offsetsOf = ({ partition, messages }: LaneWork) =>
  `${partition}:${messages.map(({ offset }) => offset).join(',')}`;

/**
 * Lanes whose work finishes when the test says so; `offsets` lists each work's commands as it
 * starts, `answered` as it is handed on in order. They linger with the arrival rate only when
 * given `lingerMaxMs`; their store is near unless `storeDistance` says otherwise.
 */
export function controllableLanes(lingerMaxMs = 0, storeDistance: StoreDistance = NEAR_STORE) {
  const started: { partition: number; offsets: string[]; work: LaneWork }[] = [];
  const finish: ((error?: Error) => void)[] = [];
  const answered: string[] = [];
  const seek = vi.fn();
  const lanes = partitionLanes(
    { seek },
    {
      answer: (work) =>
        new Promise<void>((resolve, reject) => {
          started.push({
            partition: work.partition,
            offsets: work.messages.map(({ offset }) => offset),
            work,
          });
          finish.push((error) => {
            if (error) reject(error);
            else resolve();
          });
        }),
      answered: (work) => answered.push(offsetsOf(work)),
      keyOf: ({ key }) => key?.toString(),
    },
    createLogger('writer', 'silent'),
    { lingerMaxMs, storeDistance },
  );
  const offsets = () => started.map(({ work }) => offsetsOf(work));
  return { lanes, started, finish, seek, offsets, answered };
}

/** `count` offsets from `from` on, as strings. */
export const offsetsFrom = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => String(from + index));

/**
 * Partition 0 of a broker, read by a fetch loop as kafkajs's: each fetch brings every command
 * appended since the last one (at once if there are some, as soon as one is appended otherwise)
 * and fetches again once the lanes let it go on. `fetches` lists the offsets of each.
 */
export function fetchingBroker(lanes: PartitionLanes) {
  const log: string[] = [];
  const fetches: string[][] = [];
  let fetched = 0;
  let appended: (() => void) | undefined;
  const stopping = new AbortController();
  void (async () => {
    while (!stopping.signal.aborted) {
      if (fetched === log.length) await new Promise<void>((resolve) => (appended = resolve));
      const offsets = log.slice(fetched);
      if (offsets.length === 0) continue;
      fetched = log.length;
      fetches.push(offsets);
      await lanes.accept(batchAt(0, offsets).payload);
    }
  })();
  return {
    fetches,
    append(offset: string) {
      log.push(offset);
      appended?.();
    },
    stop() {
      stopping.abort();
      appended?.();
    },
  };
}

/** Hands every batch over at once, as one fetch does: within the time a lane works alone. */
export const acceptAll = (lanes: PartitionLanes, batches: { payload: EachBatchPayload }[]) =>
  Promise.all(batches.map(({ payload }) => lanes.accept(payload)));

export const settle = () => new Promise((resolve) => setImmediate(resolve));
/** Longer than a lane under load waits before it takes more. */
export const linger = () => new Promise((resolve) => setTimeout(resolve, 20));
