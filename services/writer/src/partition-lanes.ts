import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { Logger } from '../../../shared/logger.ts';

/**
 * What all lanes may hold queued before a partition that adds to it is paused until its lane
 * catches up, counted as the heap its commands take (MESSAGE_HEAP_BYTES each beside their bytes).
 */
const MAX_QUEUED_BYTES = 16 << 20;
/**
 * kafkajs's message object, its Buffers and headers: about 1 KiB of heap for a small command,
 * which a count of its bytes alone would miss by 10 times (a backlog of 150,000 small commands
 * ran a writer out of its 256 MiB heap).
 */
const MESSAGE_HEAP_BYTES = 1 << 10;
/**
 * The most commands, and command bytes, a lane answers together: a backlog is answered in steps,
 * so that no insert holds the store long and a lane's replies stay well within one request
 * (the lanes' replies share a send, which falls back to one send each past what Kafka takes).
 */
const MAX_TAKEN_COMMANDS = 500;
const MAX_TAKEN_BYTES = 512 << 10;
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
const RETRY_MS = 500;

/** The batches a lane takes together: its commands in order, committed through the last payload. */
export interface LaneWork {
  topic: string;
  partition: number;
  messages: KafkaMessage[];
  /** The last batch's: whether kafkajs runs, and the commit of the lot. */
  payload: EachBatchPayload;
}

export interface PartitionLanes {
  /** Queues the batch on its partition's lane; resolves when kafkajs may fetch again. */
  accept(payload: EachBatchPayload): Promise<void>;
  /** After a rebalance: drops what waits for partitions given away, fetches the others past it. */
  assigned(partitionsByTopic: Record<string, number[]>): void;
  /** False once the work's partition was given away, even if it came back: do not commit it. */
  current(work: LaneWork): boolean;
  /** False once stopping: work that waits for the store or Kafka gives up. */
  running(): boolean;
  /** Takes no more batches, lets each lane finish the work in hand, drops what is queued. */
  stop(): Promise<void>;
}

/** A batch kafkajs handed over, with the commands of it no lane has taken yet. */
interface Queued {
  payload: EachBatchPayload;
  messages: KafkaMessage[];
  /** The heap the whole batch takes: its messages stay reachable through its payload. */
  bytes: number;
  /** Resolved once every command of the batch has been answered, or dropped. */
  done: () => void;
}

interface Lane {
  topic: string;
  partition: number;
  queue: Queued[];
  /** The lane's run while it has work, undefined while idle. */
  run?: Promise<void> | undefined;
  /** Bumped when the lane's queue is dropped, so that the failure of work in hand is ignored. */
  epoch: number;
  /** Bumped when the partition is given away, so that work answered before is not committed. */
  owner: number;
  /**
   * The offset after the last batch queued; unknown once the queue was dropped, until a batch is
   * queued again (a seek past a dropped queue would skip its commands).
   */
  next?: bigint | undefined;
  resume?: (() => void) | undefined;
}

/**
 * Answers each partition's commands in order on a lane of its own. kafkajs fetches again only
 * once every batch of its last fetch returned, so one slow batch (a reply topic that is gone, a
 * duplicate the store re-inserts one by one) held every other partition. Here a batch is queued
 * on its lane and its offset resolved; it holds the fetch loop until it is answered, as before,
 * but MAX_FETCH_HOLD_MS at most, and a lane takes what queued once it is free, MAX_TAKEN_COMMANDS
 * at a time. Lanes pause partitions while they hold MAX_QUEUED_BYTES. A lane is serial, so
 * offsets are still committed after their commands are answered, and in order. Work
 * that fails drops what is queued behind it and seeks its partition back to its first command,
 * so that nothing is ever committed past it.
 */
export function partitionLanes(
  consumer: Pick<Consumer, 'seek'>,
  answer: (work: LaneWork, lanes: PartitionLanes) => Promise<void>,
  logger: Logger,
): PartitionLanes {
  const lanes = new Map<string, Lane>();
  /** The lane's epoch and owner when the work was taken. */
  const stampOf = new WeakMap<LaneWork, { epoch: number; owner: number }>();
  /** The partitions of the last assignment; undefined until the first. */
  let owned: Record<string, number[]> | undefined;
  let stopping = false;

  /** The heap the commands queued on every lane take, as counted by heapBytes. */
  let queuedBytes = 0;

  const laneOf = (topic: string, partition: number): Lane => {
    const key = `${topic}\u0000${String(partition)}`;
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = { topic, partition, queue: [], epoch: 0, owner: 0 };
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
  /**
   * The lane's next commands in order, MAX_TAKEN_COMMANDS and MAX_TAKEN_BYTES at most (one at
   * least), with the payload of the last, and the batches they finish.
   */
  const take = (lane: Lane) => {
    const messages: KafkaMessage[] = [];
    const finished: (() => void)[] = [];
    let payload: EachBatchPayload | undefined;
    let bytes = 0;
    for (const queued of lane.queue) {
      let count = 0;
      for (const { value } of queued.messages) {
        const size = value?.length ?? 0;
        const full = messages.length + count === MAX_TAKEN_COMMANDS;
        if (full || (messages.length + count > 0 && bytes + size > MAX_TAKEN_BYTES)) break;
        bytes += size;
        count++;
      }
      if (count === 0) break;
      messages.push(...queued.messages.splice(0, count));
      payload = queued.payload;
      if (queued.messages.length > 0) break;
      queuedBytes -= queued.bytes;
      finished.push(queued.done);
    }
    lane.queue.splice(0, finished.length);
    if (lane.queue.length === 0) resume(lane);
    return payload === undefined ? undefined : { messages, payload, finished };
  };
  const drop = (lane: Lane) => {
    lane.epoch++;
    lane.next = undefined;
    release(lane);
  };

  const seek = (lane: Lane, offset: bigint) => {
    const { topic, partition } = lane;
    try {
      consumer.seek({ topic, partition, offset: offset.toString() });
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
    if (stopping || stampOf.get(work)?.epoch !== lane.epoch || first === undefined) return;
    drop(lane);
    logger.error(
      { err: error, topic: lane.topic, partition: lane.partition, offset: first },
      'commands failed: their partition is read again from the first of them',
    );
    seek(lane, BigInt(first));
    setTimeout(work.payload.pause(), RETRY_MS);
  };

  const runLane = async (lane: Lane) => {
    for (let taken = take(lane); taken !== undefined && !stopping; taken = take(lane)) {
      const work: LaneWork = {
        topic: lane.topic,
        partition: lane.partition,
        messages: taken.messages,
        payload: taken.payload,
      };
      stampOf.set(work, { epoch: lane.epoch, owner: lane.owner });
      await answer(work, self).catch((error: unknown) => {
        failed(lane, work, error);
      });
      if (work.messages.length > 1) await sleep(BUSY_LINGER_MS);
      for (const done of taken.finished) done();
    }
    lane.run = undefined;
  };

  const self: PartitionLanes = {
    accept(payload) {
      const { topic, partition, messages } = payload.batch;
      const [first, last] = [messages[0], messages.at(-1)];
      if (first === undefined || last === undefined || payload.isStale()) return Promise.resolve();
      // A fetch that was under way when the group rejoined can hand over a partition given away.
      if (owned !== undefined && !owned[topic]?.includes(partition)) return Promise.resolve();
      // Not taken, and so fetched again: not at once.
      if (stopping) return sleep(MAX_FETCH_HOLD_MS);
      try {
        payload.resolveOffset(last.offset);
      } catch {
        // kafkajs's offsets no longer hold the topic: every partition of it was just given away.
        return Promise.resolve();
      }
      const lane = laneOf(topic, partition);
      const heap = messages.reduce((total, message) => total + heapBytes(message), 0);
      queuedBytes += heap;
      lane.next = BigInt(last.offset) + 1n;
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
        if (!kept) lane.owner++;
        if (lane.run === undefined) continue;
        if (!kept) drop(lane);
        else if (lane.next !== undefined) seek(lane, lane.next);
      }
    },
    current(work) {
      return stampOf.get(work)?.owner === laneOf(work.topic, work.partition).owner;
    },
    running: () => !stopping,
    async stop() {
      stopping = true;
      for (const lane of lanes.values()) release(lane);
      await Promise.all([...lanes.values()].flatMap(({ run }) => (run === undefined ? [] : [run])));
    },
  };
  return self;
}

/** The heap a command queued takes, about: its bytes and kafkajs's objects around them. */
function heapBytes({ key, value, headers }: KafkaMessage): number {
  let bytes = MESSAGE_HEAP_BYTES + (key?.length ?? 0) + (value?.length ?? 0);
  for (const header of Object.values(headers ?? {})) {
    for (const item of [header].flat()) bytes += item?.length ?? 0;
  }
  return bytes;
}
