import type { IHeaders } from 'kafkajs';
import { HEADERS, readReplyPartition, type Topics } from '#shared/contracts/kafka.ts';
import { firstHeader } from '#shared/kafka/messages.ts';

/** Where a command asks its reply to go, or why no reply can go there. */
export type ReplyRoute =
  | { kind: 'none' }
  | { kind: 'reply'; topic: string; partition: number | undefined }
  | { kind: 'refused'; topic: string; reason: GivenUpReason; detail: string };

/** Why a reply was given up: refused before sending, or refused by Kafka. */
export type GivenUpReason = 'invalid_topic' | 'own_topic' | 'invalid_partition' | 'send_failed';

/** Kafka's own rule for topic names (kafka.common.internals.Topic). */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/**
 * The reply address a command carries, checked before anything is sent: a name Kafka would
 * refuse, the writer's own command or dead-letter topic (a reply there would be read as a command
 * or as a dead letter), or a negative partition is refused at once. Whether the topic and
 * partition exist is left to the send, which gives up on them after a bounded retry.
 */
export function replyRoute(
  headers: IHeaders | undefined,
  topics: Pick<Topics, 'create' | 'dlq'>,
): ReplyRoute {
  const raw = firstHeader(headers?.[HEADERS.replyTopic]);
  if (raw === undefined) return { kind: 'none' };
  const topic = raw.toString();
  if (!TOPIC_NAME.test(topic) || topic === '.' || topic === '..') {
    return {
      kind: 'refused',
      topic,
      reason: 'invalid_topic',
      detail: `${HEADERS.replyTopic} is not a valid Kafka topic name`,
    };
  }
  if (topic === topics.create || topic === topics.dlq) {
    return {
      kind: 'refused',
      topic,
      reason: 'own_topic',
      detail: `${HEADERS.replyTopic} names the writer's own ${topic === topics.create ? 'command' : 'dead-letter'} topic`,
    };
  }
  const partition = readReplyPartition(firstHeader(headers?.[HEADERS.replyPartition]));
  if (partition !== undefined && partition < 0) {
    return {
      kind: 'refused',
      topic,
      reason: 'invalid_partition',
      detail: `${HEADERS.replyPartition} is negative (${partition})`,
    };
  }
  return { kind: 'reply', topic, partition };
}
