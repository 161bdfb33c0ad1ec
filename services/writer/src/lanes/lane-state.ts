import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { QueuedBatch } from './lane-queue.ts';

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

export interface LaneHandlers {
  /** Answers the work's commands; rejects when they were not all answered. */
  answer(work: LaneWork): Promise<void>;
  /** Hears of each work once it and every work before it on its lane are answered, in order. */
  answered(work: LaneWork): void;
  /**
   * What orders commands beyond their partition (a plant's id): work waits for the works before
   * it on its lane that hold one of its keys, and only for those.
   */
  keyOf(message: KafkaMessage): string | undefined;
}

/** A work a lane took, until it and every work before it are answered. */
export interface Flight {
  work: LaneWork;
  startedAt: number;
  state: 'answering' | 'answered' | 'failed';
  /** Why it failed, once it did. */
  error?: unknown;
  /** Resolves true once answered, false once failed. */
  settled: Promise<boolean>;
  /** Its commands' keys, read once a later work starts beside it. */
  keys?: Set<string>;
}

export interface Lane {
  topic: string;
  partition: number;
  queue: QueuedBatch[];
  /** The works taken, in their order; the first is the oldest not handed to `answered` yet. */
  flights: Flight[];
  /** When the lane may take more after answering under load (BUSY_LINGER_MS). */
  lingerUntil: number;
  /** A start held back until the lane may take more. */
  wake?: NodeJS.Timeout | undefined;
  /** Aborted when the lane's queue is dropped, so that the outcome of the work in hand is ignored. */
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

export function newLane(topic: string, partition: number): Lane {
  return {
    topic,
    partition,
    queue: [],
    flights: [],
    lingerUntil: 0,
    dropped: new AbortController(),
    owned: new AbortController(),
  };
}

export function resume(lane: Lane): void {
  lane.resume?.();
  lane.resume = undefined;
}

/** Empties the lane's queue and resumes its partition; returns what the queue held. */
export function emptyQueue(lane: Lane): QueuedBatch[] {
  const queued = lane.queue;
  lane.queue = [];
  resume(lane);
  return queued;
}

/** Forgets the work in hand, whose outcome is then ignored, and where the queue had reached. */
export function forgetWork(lane: Lane): void {
  lane.dropped.abort();
  lane.dropped = new AbortController();
  lane.flights = [];
  lane.next = undefined;
}

export function giveAway(lane: Lane): void {
  lane.owned.abort();
  lane.owned = new AbortController();
}
