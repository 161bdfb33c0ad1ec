export interface Topics {
  create: string;
  replies: string;
  dlq: string;
}

export const TOPICS: Topics = {
  create: 'plants.create',
  replies: 'plants.create.replies',
  dlq: 'plants.create.dlq',
};

export const WRITER_GROUP = 'plant-writers';
/** Each gateway's reply consumer has a group of its own, named with this prefix. */
export const GATEWAY_GROUP_PREFIX = 'plant-gateway-';
/** `npm run dlq` reads with a group of its own, named with this prefix, and deletes it. */
export const DLQ_READER_GROUP_PREFIX = 'plant-store-dlq-reader-';

/** Header names shared with Spring's ReplyingKafkaTemplate and NestJS's ClientKafka. */
export const HEADERS = {
  correlationId: 'kafka_correlationId',
  replyTopic: 'kafka_replyTopic',
  replyPartition: 'kafka_replyPartition',
  /** NestJS completes `send()` only when a reply carries it (any value). */
  nestIsDisposed: 'kafka_nest-is-disposed',
  contentType: 'content-type',
  requestId: 'x-request-id',
  /** Gateway-only: epoch milliseconds after which nobody waits for the reply. */
  deadline: 'x-deadline',
  errorCode: 'error-code',
  errorMessage: 'error-message',
  /** On the DLQ copy of a command whose reply could not be delivered: `<reason>: <detail>`. */
  replyError: 'error-reply',
  /** On a DLQ copy the DLQ refused as too large: only the key and why were kept. */
  copyTruncated: 'error-copy-truncated',
  /** On a command replayed from the DLQ (`npm run dlq`): `partition:offset` of its dead letter. */
  replayOf: 'x-dlq-replay-of',
} as const;

/** `kafka_replyPartition` as the gateway sends it: a 4-byte big-endian integer, as Spring does. */
export function replyPartitionHeader(partition: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(partition);
  return bytes;
}

/**
 * `kafka_replyPartition` as Spring and SmallRye send it (4-byte big-endian integer) or as NestJS
 * does (decimal string). Undefined when absent or unreadable: the producer then picks.
 */
export function readReplyPartition(header: Buffer | string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const bytes = Buffer.from(header);
  if (bytes.length === 4 && !/^\d{4}$/.test(bytes.toString('latin1'))) return bytes.readInt32BE();
  const text = bytes.toString('utf8');
  return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}
