import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachBatchPayload } from 'kafkajs';
import type { Logger } from '../../../shared/logger.ts';

/** Batches a partition may have in its lane before it is paused until the lane catches up. */
const MAX_PENDING_BATCHES = 2;
const RETRY_MS = 500;

export interface PartitionLanes {
  /** Queues the batch on its partition's lane and returns at once. */
  accept(payload: EachBatchPayload): void;
  /** After a rebalance: drops what waits for partitions given away, and fetches the others past what waits. */
  assigned(partitionsByTopic: Record<string, number[]>): void;
  /** False once the batch's partition was given away or failed behind it: do not commit it. */
  current(payload: EachBatchPayload): boolean;
  /** False once stopping: a batch that waits for the store or Kafka gives up. */
  running(): boolean;
  /** Takes no more batches, lets the batch in hand of each lane finish, drops the rest. */
  stop(): Promise<void>;
}

interface Lane {
  topic: string;
  partition: number;
  tail: Promise<void>;
  pending: number;
  /** Bumped when the lane's queued batches are dropped: they are to be read again, or by another writer. */
  epoch: number;
  /** The offset after the last batch queued. */
  next: bigint;
  /** After a seek back to this offset, batches fetched from past it are dropped. */
  restartAt?: bigint | undefined;
  resume?: (() => void) | undefined;
}

/**
 * Answers each partition's batches one after another, apart from kafkajs's fetch loop. kafkajs
 * fetches again only once every batch of the last fetch returned, so one slow batch (a reply
 * topic that is gone, a duplicate the store re-inserts one by one) held every other partition.
 * Here a batch is queued and its offset resolved at once, and a partition with
 * MAX_PENDING_BATCHES in its lane is paused until the lane catches up. A lane is serial, so
 * offsets are still committed after their batch is answered and in order. A batch that is not
 * answered drops the batches queued behind it and seeks its partition back to its first command,
 * so that nothing is ever committed past it.
 */
export function partitionLanes(
  consumer: Pick<Consumer, 'seek'>,
  answer: (payload: EachBatchPayload) => Promise<void>,
  logger: Logger,
): PartitionLanes {
  const lanes = new Map<string, Lane>();
  const epochAtAccept = new WeakMap<EachBatchPayload, number>();
  let stopping = false;

  const laneOf = (topic: string, partition: number): Lane => {
    const key = `${topic}\u0000${String(partition)}`;
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = { topic, partition, tail: Promise.resolve(), pending: 0, epoch: 0, next: 0n };
      lanes.set(key, lane);
    }
    return lane;
  };

  const seek = (lane: Lane, offset: bigint) => {
    const { topic, partition } = lane;
    try {
      consumer.seek({ topic, partition, offset: offset.toString() });
    } catch (error) {
      logger.warn({ err: error, topic, partition }, 'seeking the partition failed');
    }
  };

  const failed = async (lane: Lane, payload: EachBatchPayload, error: unknown) => {
    if (stopping || epochAtAccept.get(payload) !== lane.epoch) return;
    lane.epoch++;
    const first = BigInt(payload.batch.messages[0]?.offset ?? lane.next);
    logger.error(
      { err: error, topic: lane.topic, partition: lane.partition, offset: first.toString() },
      'batch failed: its partition is read again from its first command',
    );
    await sleep(RETRY_MS);
    lane.restartAt = first;
    lane.next = first;
    seek(lane, first);
  };

  return {
    accept(payload) {
      const { topic, partition, messages } = payload.batch;
      const [first, last] = [messages[0], messages.at(-1)];
      if (stopping || first === undefined || last === undefined) return;
      const lane = laneOf(topic, partition);
      if (lane.restartAt !== undefined) {
        if (BigInt(first.offset) > lane.restartAt) return;
        lane.restartAt = undefined;
      }
      epochAtAccept.set(payload, lane.epoch);
      lane.pending++;
      lane.next = BigInt(last.offset) + 1n;
      payload.resolveOffset(last.offset);
      if (lane.pending >= MAX_PENDING_BATCHES) lane.resume ??= payload.pause();
      lane.tail = lane.tail
        .then(() => {
          if (stopping || epochAtAccept.get(payload) !== lane.epoch) return undefined;
          return answer(payload).catch((error: unknown) => failed(lane, payload, error));
        })
        .finally(() => {
          lane.pending--;
          if (lane.pending < MAX_PENDING_BATCHES && lane.resume !== undefined) {
            lane.resume();
            lane.resume = undefined;
          }
        });
    },
    assigned(partitionsByTopic) {
      for (const lane of lanes.values()) {
        if (lane.pending === 0) continue;
        if (partitionsByTopic[lane.topic]?.includes(lane.partition)) seek(lane, lane.next);
        else lane.epoch++;
      }
    },
    current: (payload) => {
      const { topic, partition } = payload.batch;
      return epochAtAccept.get(payload) === laneOf(topic, partition).epoch;
    },
    running: () => !stopping,
    async stop() {
      stopping = true;
      await Promise.all([...lanes.values()].map(({ tail }) => tail));
    },
  };
}
