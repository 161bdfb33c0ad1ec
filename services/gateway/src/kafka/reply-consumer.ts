import { randomUUID } from 'node:crypto';
import type { Consumer, IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import type { Counter } from 'prom-client';
import { GATEWAY_GROUP_PREFIX, HEADERS } from '#shared/contracts/kafka.ts';
import { decodeReply } from '#shared/contracts/reply.ts';
import { headerText, nextOffset } from '#shared/kafka/messages.ts';
import type { ReplyWaiter } from './reply-waiter.ts';
import { onePartitionAssigner } from './reply-partition.ts';
import { recordReplyArrival } from '../observability/request-tracing.ts';

export interface ReplyConsumer {
  /**
   * Why replies cannot reach this gateway now, or undefined: not assigned its partitions and
   * fetching yet (replies would be lost), or no fetch answered for REPLIES_SILENT_MS.
   */
  notReadyReason(): string | undefined;
  disconnect(): Promise<void>;
}

/**
 * A fetch is answered within its wait (500 ms) when nothing arrives, a round trip later: 6.5 s
 * with 3 s added each way (the reply-slow gray fault), which must not make the gateway flap
 * between ready and not. None answered for this long
 * means the path to Kafka is down or black-holed for this gateway: no reply can arrive, and the
 * gateway is not ready until one is answered again.
 */
const REPLIES_SILENT_MS = 8_000;

export interface ReplyConsumerOptions {
  /** The one partition of the reply topic this gateway reads, named on every command it sends. */
  partition: number;
  /** Counts what is fetched: replies of this gateway, and of any other sharing the partition. */
  fetched: { records: Counter; bytes: Counter };
}

/**
 * Reads one partition of the shared reply topic in a consumer group of this instance's own, and
 * hands the waiter the replies this instance waits for; others (from a gateway that shares the
 * partition) are not even parsed. No offsets are committed: a restarted gateway has nobody
 * waiting for old replies. A consumer kafkajs restarts in the same process (after the group
 * coordinator's broker died) goes on from where it was, not from the end: the replies written
 * meanwhile are still waited for.
 */
export async function startReplyConsumer(
  kafka: Kafka,
  replyTopic: string,
  waiter: ReplyWaiter,
  { partition, fetched }: ReplyConsumerOptions,
): Promise<ReplyConsumer> {
  const consumer: Consumer = kafka.consumer({
    groupId: `${GATEWAY_GROUP_PREFIX}${randomUUID()}`,
    partitionAssigners: [onePartitionAssigner(replyTopic, partition)],
    sessionTimeout: 10_000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 500,
  });
  let joined = false;
  let fetching = false;
  let lastFetchAt = Date.now();
  /** The next offset to read of each partition: where it was at the first join, or after the last read. */
  const positions = new Map<number, string>();
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    const partitions = payload.memberAssignment[replyTopic] ?? [];
    if (!joined) {
      joined = true;
      // A partition nothing arrived on since is still read from here after a restart.
      void endsOf(kafka, replyTopic).then(
        (ends) => {
          for (const [partition, offset] of ends)
            if (!positions.has(partition)) positions.set(partition, offset);
        },
        () => undefined,
      );
      return;
    }
    for (const partition of partitions) {
      const offset = positions.get(partition);
      if (offset !== undefined) consumer.seek({ topic: replyTopic, partition, offset });
    }
  });
  consumer.on(consumer.events.FETCH_START, () => {
    fetching = joined;
  });
  consumer.on(consumer.events.FETCH, () => {
    lastFetchAt = Date.now();
  });
  const silence = () => {
    const silentMs = Date.now() - lastFetchAt;
    return silentMs < REPLIES_SILENT_MS
      ? undefined
      : `no fetch of replies answered by Kafka for ${(silentMs / 1_000).toFixed(1)} s`;
  };
  await consumer.connect();
  await consumer.subscribe({ topic: replyTopic, fromBeginning: false });
  await consumer.run({
    autoCommit: false,
    eachBatch: ({ batch }) => {
      const last = batch.messages.at(-1);
      if (last !== undefined) positions.set(batch.partition, nextOffset(last.offset));
      fetched.records.inc(batch.messages.length);
      fetched.bytes.inc(batch.messages.reduce((sum, message) => sum + recordBytes(message), 0));
      for (const message of batch.messages) {
        const correlationId = headerText(message.headers, HEADERS.correlationId);
        if (correlationId === undefined || !waiter.isWaitingFor(correlationId)) continue;
        const reply = decodeReply(message.value);
        if (reply === null) continue;
        recordReplyArrival(batch.topic, batch.partition, message.headers);
        waiter.deliver(correlationId, reply);
      }
      return Promise.resolve();
    },
  });
  return {
    notReadyReason: () => (fetching ? silence() : 'the reply consumer is not assigned yet'),
    disconnect: () => consumer.disconnect(),
  };
}

/** A record's key, value and headers, as counted in `plant_store_gateway_reply_bytes_fetched_total`. */
function recordBytes({ key, value, headers }: KafkaMessage): number {
  return (key?.length ?? 0) + (value?.length ?? 0) + headerBytes(headers);
}

function headerBytes(headers: IHeaders | undefined): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const each of [value ?? []].flat()) bytes += name.length + Buffer.byteLength(each);
  }
  return bytes;
}

/** Each partition's end offset; reading starts there at the first join (`fromBeginning: false`). */
async function endsOf(kafka: Kafka, topic: string): Promise<Map<number, string>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map(({ partition, high }) => [partition, high]));
  } finally {
    await admin.disconnect();
  }
}
