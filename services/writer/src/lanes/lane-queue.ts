import type { EachBatchPayload, KafkaMessage } from 'kafkajs';

/**
 * The most commands, and command bytes, a lane answers together: a backlog is answered in steps,
 * so that no insert holds the store long and a lane's replies stay well within one request
 * (the lanes' replies share a send, which falls back to one send each past what Kafka takes).
 */
const MAX_TAKEN_COMMANDS = 500;
const MAX_TAKEN_BYTES = 512 << 10;
/**
 * kafkajs's message object, its Buffers and headers, as heap per command: many times a small
 * command's bytes, which a count of its bytes alone would miss, and a backlog of small commands
 * ran a writer out of its heap (docs/history/2026-12-03-figures-behind-the-comments.md).
 */
const MESSAGE_HEAP_BYTES = 1 << 10;

/** A batch kafkajs handed over, with the commands of it no lane has taken yet. */
export interface QueuedBatch {
  payload: EachBatchPayload;
  messages: KafkaMessage[];
  /** The heap the whole batch takes: its messages stay reachable through its payload. */
  bytes: number;
  /** Resolved once every command of the batch has been answered, or dropped. */
  done: () => void;
}

/** Commands taken off a lane's queue, to answer together. */
export interface Taken {
  messages: KafkaMessage[];
  /** The last command's batch: whether kafkajs runs, and the commit of the lot. */
  payload: EachBatchPayload;
  /** The batches whose last command is among them, now off the queue. */
  finished: QueuedBatch[];
}

/**
 * Takes the queue's next commands in order, MAX_TAKEN_COMMANDS and MAX_TAKEN_BYTES at most (one
 * at least); a batch taken in part stays at the head of the queue with the rest of its commands.
 */
export function takeCommands(queue: QueuedBatch[]): Taken | undefined {
  const messages: KafkaMessage[] = [];
  const finished: QueuedBatch[] = [];
  let payload: EachBatchPayload | undefined;
  let bytes = 0;
  for (const queued of queue) {
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
    finished.push(queued);
  }
  queue.splice(0, finished.length);
  return payload === undefined ? undefined : { messages, payload, finished };
}

/** The heap a command queued takes, about: its bytes and kafkajs's objects around them. */
export function heapBytes({ key, value, headers }: KafkaMessage): number {
  let bytes = MESSAGE_HEAP_BYTES + (key?.length ?? 0) + (value?.length ?? 0);
  for (const header of Object.values(headers ?? {})) {
    for (const item of [header].flat()) bytes += item?.length ?? 0;
  }
  return bytes;
}
