import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { nextOffset, partitionKey } from '../../../../shared/kafka-messages.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { RETRY_MS } from '../answering/until-it-succeeds.ts';
import { heapBytes, takeCommands, type QueuedBatch } from './lane-queue.ts';

/**
 * What all lanes may hold queued before a partition that adds to it is paused until its lane
 * catches up, counted as the heap its commands take (lane-queue.ts).
 */
const MAX_QUEUED_BYTES = 16 << 20;
/**
 * How long a batch holds kafkajs's fetch loop at most, waiting to be answered. Under this, the
 * loop runs as kafkajs runs it (fetch, answer everything fetched, fetch again), which is what
 * batches commands best; past it, the batch goes on alone and the other partitions are fetched.
 */
const MAX_FETCH_HOLD_MS = 25;
/**
 * How long a lane that answered more than one command (it is under load) waits before it takes
 * more and lets kafkajs fetch again, so that the next batch carries more commands: fewer fetches,
 * inserts, sends and commits per command. A lone command (no load) never waits.
 */
const BUSY_LINGER_MS = 2;

/** Commands of one partition a lane answers together, in order. */
export interface LaneWork {
  topic: string;
  partition: number;
  messages: KafkaMessage[];
  /** The last command's batch: whether kafkajs runs, and the commit of the lot. */
  payload: EachBatchPayload;
  /** Aborted once the lanes stop: work that waits for the store or Kafka gives up. */
  stopping: AbortSignal;
  /** Aborted once the partition is given away, even if it comes back: do not commit the work. */
  givenAway: AbortSignal;
}

export interface PartitionLanes {
  /** Queues the batch on its partition's lane; resolves when kafkajs may fetch again. */
  accept(payload: EachBatchPayload): Promise<void>;
  /** After a rebalance: drops what waits for partitions given away, fetches the others past it. */
  assigned(partitionsByTopic: Record<string, number[]>): void;
  /** Takes no more batches, lets each lane finish the work in hand, drops what is queued. */
  stop(): Promise<void>;
}

interface Lane {
  topic: string;
  partition: number;
  queue: QueuedBatch[];
  /** The lane's run while it has work, undefined while idle. */
  run?: Promise<void> | undefined;
  /** Aborted when the lane's queue is dropped, so that the failure of the work in hand is ignored. */
  dropped: AbortController;
  /** Aborted when the partition is given away, so that work answered before is not committed. */
  owned: AbortController;
  /**
   * The offset after the last batch queued; unknown once the queue was dropped, until a batch is
   * queued again (a seek past a dropped queue would skip its commands).
   */
  next?: string | undefined;
  /** Resumes the partition paused while the lanes held too much. */
  resume?: (() => void) | undefined;
}

/**
 * Answers each partition's commands in order on a lane of its own. kafkajs fetches again only
 * once every batch of its last fetch returned, so one slow batch (a reply topic that is gone, a
 * duplicate the store re-inserts one by one) held every other partition. Here a batch is queued
 * on its lane and its offset resolved; it holds the fetch loop until it is answered, as before,
 * but MAX_FETCH_HOLD_MS at most, and a lane takes what queued once it is free (lane-queue.ts).
 * Lanes pause partitions while they hold MAX_QUEUED_BYTES. A lane is serial, so offsets are
 * still committed after their commands are answered, and in order. Work that fails drops what
 * is queued behind it and seeks its partition back to its first command, so that nothing is ever
 * committed past it. `answer` gets each work with what it needs to know of the lanes (whether
 * they stop, whether the partition was given away); it never calls back into them.
 */
export function partitionLanes(
  consumer: Pick<Consumer, 'seek'>,
  answer: (work: LaneWork) => Promise<void>,
  logger: Logger,
): PartitionLanes {
  const lanes = new Map<string, Lane>();
  /** The partitions of the last assignment; undefined until the first. */
  let owned: Record<string, number[]> | undefined;
  const stopping = new AbortController();
  /** The heap the commands queued on every lane take, as counted by heapBytes. */
  let queuedBytes = 0;

  const laneOf = (topic: string, partition: number): Lane => {
    const key = partitionKey(topic, partition);
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = {
        topic,
        partition,
        queue: [],
        dropped: new AbortController(),
        owned: new AbortController(),
      };
      lanes.set(key, lane);
    }
    return lane;
  };

  const resume = (lane: Lane) => {
    lane.resume?.();
    lane.resume = undefined;
  };
  /** Empties the lane's queue and lets those waiting for what it held go on. */
  const release = (lane: Lane) => {
    const queued = lane.queue;
    lane.queue = [];
    resume(lane);
    for (const { bytes, done } of queued) {
      queuedBytes -= bytes;
      done();
    }
  };
  const drop = (lane: Lane) => {
    lane.dropped.abort();
    lane.dropped = new AbortController();
    lane.next = undefined;
    release(lane);
  };
  const giveAway = (lane: Lane) => {
    lane.owned.abort();
    lane.owned = new AbortController();
  };

  const seek = (lane: Lane, offset: string) => {
    const { topic, partition } = lane;
    try {
      consumer.seek({ topic, partition, offset });
    } catch (error) {
      logger.warn({ err: error, topic, partition }, 'seeking the partition failed');
    }
  };

  /**
   * Drops what is queued behind failed work and seeks its partition back to its first command:
   * kafkajs then drops what it fetched past it (`isStale`), and reads from there once the
   * partition is resumed, RETRY_MS later, so that a failure that repeats does not spin.
   */
  const failed = (lane: Lane, work: LaneWork, error: unknown) => {
    const first = work.messages[0]?.offset;
    if (stopping.signal.aborted || first === undefined) return;
    drop(lane);
    logger.error(
      { err: error, topic: lane.topic, partition: lane.partition, offset: first },
      'commands failed: their partition is read again from the first of them',
    );
    seek(lane, first);
    setTimeout(work.payload.pause(), RETRY_MS);
  };

  const runLane = async (lane: Lane) => {
    while (!stopping.signal.aborted) {
      const taken = takeCommands(lane.queue);
      if (lane.queue.length === 0) resume(lane);
      if (taken === undefined) break;
      for (const { bytes } of taken.finished) queuedBytes -= bytes;
      const { messages, payload } = taken;
      const { topic, partition } = lane;
      const work: LaneWork = {
        topic,
        partition,
        messages,
        payload,
        stopping: stopping.signal,
        givenAway: lane.owned.signal,
      };
      const dropped = lane.dropped.signal;
      await answer(work).catch((error: unknown) => {
        if (!dropped.aborted) failed(lane, work, error);
      });
      if (messages.length > 1) await sleep(BUSY_LINGER_MS);
      for (const { done } of taken.finished) done();
    }
    lane.run = undefined;
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
      const lane = laneOf(topic, partition);
      const heap = messages.reduce((total, message) => total + heapBytes(message), 0);
      queuedBytes += heap;
      lane.next = nextOffset(last.offset);
      if (queuedBytes > MAX_QUEUED_BYTES) lane.resume ??= payload.pause();
      const answered = new Promise<void>((done) => {
        lane.queue.push({ payload, messages: [...messages], bytes: heap, done });
      });
      lane.run ??= runLane(lane);
      return Promise.race([answered, sleep(MAX_FETCH_HOLD_MS)]);
    },
    assigned(partitionsByTopic) {
      owned = partitionsByTopic;
      for (const lane of lanes.values()) {
        const kept = partitionsByTopic[lane.topic]?.includes(lane.partition) ?? false;
        // An idle lane's last work may still wait for its commit.
        if (!kept) giveAway(lane);
        if (lane.run === undefined) continue;
        if (!kept) drop(lane);
        else if (lane.next !== undefined) seek(lane, lane.next);
      }
    },
    async stop() {
      stopping.abort();
      for (const lane of lanes.values()) release(lane);
      await Promise.all([...lanes.values()].flatMap(({ run }) => (run === undefined ? [] : [run])));
    },
  };
}
