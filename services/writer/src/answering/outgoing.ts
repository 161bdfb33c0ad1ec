import type { Message } from 'kafkajs';

/**
 * A message the writer produces: a reply, which Kafka may refuse alone (its command is then
 * copied to the DLQ), or a copy of a command on the dead-letter topic, which it may not (the
 * batch waits and is sent again).
 */
export interface Outgoing {
  kind: 'reply' | 'copy';
  topic: string;
  message: Message;
  /** Sent instead when Kafka refuses `message` as too large (a copy on a DLQ with a small limit). */
  ifTooLarge?: Message;
}

/** The replies Kafka refused after its bounded retry, and why. */
export type Refusals = ReadonlyMap<Outgoing, Error>;

/** Where a batch's answers go out: Kafka, through the writer's producers (kafka/outgoing-sender.ts). */
export interface OutgoingSender {
  /**
   * Sends every message (acks=all); the batches of several partitions in flight at once share
   * one request. Resolves with the replies Kafka refused one by one after its bounded retry (a
   * topic or partition that does not exist, a record too large, authorization refused); rejects
   * when anything else failed, which leaves the batch to be sent again.
   */
  send(outgoing: readonly Outgoing[]): Promise<Refusals>;
  disconnect(): Promise<void>;
}
