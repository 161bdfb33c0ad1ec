import {
  Partitioners,
  type Kafka,
  type Producer,
  type RecordMetadata,
  type TopicMessages,
} from 'kafkajs';
import { coalescer } from '#shared/batching/coalescer.ts';
import { idempotentProducer } from '#shared/kafka/idempotent-producer.ts';
import { groupByTopic } from '#shared/kafka/messages.ts';
import type { Logger } from '#shared/logger.ts';
import type { Outgoing, OutgoingSender, Refusals } from '../answering/outgoing.ts';

/**
 * About 1.5 s of attempts (100, 200, 400, 500, 500 ms apart) before kafkajs gives a send up. Its
 * client-wide retry waits up to ~30 s for a broker restart; here the batch loop does that
 * waiting, and a reply to a topic that is gone must not hold every partition for 30 s.
 */
const SEND_RETRY = { initialRetryTime: 100, maxRetryTime: 500, retries: 4 };
const MAX_KNOWN_TOPICS = 1_000;
/**
 * The most bytes of messages the batches that wait for a send carry together in one: the
 * broker refuses a partition's part of a request over its message.max.bytes (1 MiB by default),
 * and a lane's batch holds 512 KiB of commands at most (lanes/lane-queue.ts), so that a reply batch is
 * about as large. Unbounded, a backlog's batches, all replied to on one partition, were gathered
 * into requests of several MiB, each refused as too large and then sent again one by one.
 */
const MAX_SEND_BYTES = 512 << 10;
/**
 * How often a reply to a partition the producer does not know may replace it, to read the
 * partitions again: once after partitions are added, while commands naming partitions that do
 * not exist cannot make every batch wait for a new producer.
 */
const REFRESH_AT_MOST_EVERY_MS = 10_000;

/** A reply refused because its partition is not in the producer's metadata. */
class PartitionNotListed extends Error {}

/**
 * Batches go out on an idempotent producer, replaced after a failed send (which also rids it of
 * a deleted topic: kafkajs keeps every topic it produced to in the metadata it refreshes, and a
 * refresh that meets a deleted topic fails for all of them). Replies to a topic not tried yet go
 * out on a producer of their own, and the messages of a batch that failed go out again there one
 * send each, in parallel, so that one refusal cannot take the others with it. Those producers
 * are not idempotent: kafkajs's sequence numbers do not survive sends to one partition in
 * parallel, and what they may write twice on a retry is a reply (answered once, by correlation
 * id) or a copy of a command (sent again anyway when its batch fails).
 */
export async function outgoingSender(kafka: Kafka, logger: Logger): Promise<OutgoingSender> {
  const onDiscardFailed = (error: unknown) => {
    logger.warn({ err: error }, 'disconnecting a replaced producer failed');
  };
  const producer = await idempotentProducer(
    kafka,
    { createPartitioner: Partitioners.DefaultPartitioner, retry: SEND_RETRY },
    onDiscardFailed,
  );
  const ownProducer = withOwnProducer(kafka, onDiscardFailed);

  const sendTogether = coalescer<readonly Outgoing[], RecordMetadata[]>(
    async (batches) => {
      const written = await producer.sendBatch(batchOf(batches.flat()));
      return batches.map(() => written);
    },
    { gather: true, maxBatchSize: MAX_SEND_BYTES, sizeOf: bytesOf },
  );
  const sendKnown = async (items: readonly Outgoing[]): Promise<Refusals> => {
    if (items.length === 0) return new Map();
    try {
      return notWritten(items, await sendTogether(items));
    } catch {
      return ownProducer((own) => sendOneByOne(own, items));
    }
  };
  /**
   * A topic that does not exist fails kafkajs's metadata refresh, and so every send of the
   * producer that tried it, for as long as its retry lasts: the replies beside them go out at once.
   */
  const sendUntried = (items: readonly Outgoing[]): Promise<Refusals> =>
    ownProducer(async (own) => {
      try {
        return notWritten(items, await own.sendBatch({ acks: -1, ...batchOf(items) }));
      } catch {
        return await sendOneByOne(own, items);
      }
    });
  const known = knownTopics();
  let refreshedAt = -Infinity;
  /**
   * Replies to partitions the producer does not list are sent again once its metadata is read
   * afresh, at most every REFRESH_AT_MOST_EVERY_MS: partitions added to a reply topic are then
   * written to, not given up. What is still refused after that does not exist. (Replies to a
   * topic not tried yet went out on a new producer, whose metadata is fresh.)
   */
  const afterRefresh = async (refused: Refusals): Promise<Refusals> => {
    const unlisted = [...refused].flatMap(([item, error]) =>
      error instanceof PartitionNotListed ? [item] : [],
    );
    if (unlisted.length === 0 || Date.now() - refreshedAt < REFRESH_AT_MOST_EVERY_MS) {
      return refused;
    }
    refreshedAt = Date.now();
    await producer.refresh();
    const again = await sendKnown(unlisted);
    return new Map(
      [...refused].flatMap(([item, error]) => {
        if (!unlisted.includes(item)) return [[item, error] as const];
        const stillRefused = again.get(item);
        return stillRefused === undefined ? [] : [[item, stillRefused] as const];
      }),
    );
  };

  return {
    async send(outgoing) {
      const [toKnown, untried] = known.split(outgoing);
      const refused = new Map(
        (
          await Promise.all([
            sendKnown(toKnown).then(afterRefresh),
            ...[...untried.values()].map(sendUntried),
          ])
        ).flatMap((each) => [...each]),
      );
      known.learn(untried.keys(), refused);
      return refused;
    },
    disconnect: () => producer.disconnect(),
  };
}

/** Runs `use` on a producer of its own, not idempotent, disconnected once `use` ends. */
function withOwnProducer(kafka: Kafka, onDiscardFailed: (error: unknown) => void) {
  return async <T>(use: (own: Producer) => Promise<T>): Promise<T> => {
    const own = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      idempotent: false,
      retry: SEND_RETRY,
    });
    try {
      await own.connect();
      return await use(own);
    } finally {
      own.disconnect().catch(onDiscardFailed);
    }
  };
}

/** The reply topics that took a reply, the last MAX_KNOWN_TOPICS of them. */
function knownTopics() {
  const topics = new Set<string>();
  return {
    /** Copies and replies to known topics, and the other replies by topic. */
    split(outgoing: readonly Outgoing[]): [Outgoing[], Map<string, Outgoing[]>] {
      const toKnown: Outgoing[] = [];
      const untried = new Map<string, Outgoing[]>();
      for (const item of outgoing) {
        const alone = item.kind === 'reply' && !topics.has(item.topic);
        if (!alone) toKnown.push(item);
        else if (untried.has(item.topic)) untried.get(item.topic)?.push(item);
        else untried.set(item.topic, [item]);
      }
      return [toKnown, untried];
    },
    /** Topics tried that took a reply become known; a known topic that refused one is forgotten. */
    learn(tried: Iterable<string>, refused: Refusals) {
      const refusedTopics = new Set([...refused.keys()].map(({ topic }) => topic));
      for (const topic of refusedTopics) topics.delete(topic);
      for (const topic of tried) {
        if (refusedTopics.has(topic)) continue;
        topics.add(topic);
        if (topics.size > MAX_KNOWN_TOPICS) topics.delete(topics.values().next().value ?? topic);
      }
    },
  };
}

/**
 * Each message on its own, so that one refused reply cannot take the others with it. A copy the
 * DLQ refuses as too large is sent in its short form; any other copy refused fails the lot.
 */
async function sendOneByOne(producer: Producer, outgoing: readonly Outgoing[]): Promise<Refusals> {
  const sendAlone = (item: Outgoing) => producer.sendBatch({ acks: -1, ...batchOf([item]) });
  const results = await Promise.allSettled(
    outgoing.map((item) =>
      sendAlone(item).catch((error: unknown) => {
        if (item.ifTooLarge === undefined || !tooLarge(error)) throw error;
        return sendAlone({ ...item, message: item.ifTooLarge });
      }),
    ),
  );
  const refused = new Map<Outgoing, Error>();
  results.forEach((result, index) => {
    const item = outgoing[index];
    if (item === undefined) return;
    if (result.status === 'fulfilled') {
      for (const [reply, error] of notWritten([item], result.value)) refused.set(reply, error);
      return;
    }
    const error = result.reason instanceof Error ? result.reason : new Error(String(result.reason));
    if (item.kind === 'copy') throw error;
    refused.set(item, error);
  });
  return refused;
}

/** kafkajs wraps the broker's error code in its retry errors, as `cause`. */
function tooLarge(error: unknown): boolean {
  for (let at: unknown = error; at instanceof Error; at = at.cause) {
    const { type } = at as { type?: string };
    if (type === 'MESSAGE_TOO_LARGE' || type === 'RECORD_LIST_TOO_LARGE') return true;
  }
  return false;
}

/**
 * kafkajs drops a message addressed to a partition its metadata does not list, and reports
 * success: such a reply is refused here, by the partitions the broker acknowledged.
 */
function notWritten(outgoing: readonly Outgoing[], written: readonly RecordMetadata[]): Refusals {
  return new Map(
    outgoing.flatMap((item) => {
      const { topic, kind } = item;
      const { partition } = item.message;
      if (kind === 'copy' || partition === undefined) return [];
      if (written.some((record) => record.topicName === topic && record.partition === partition)) {
        return [];
      }
      return [
        [item, new PartitionNotListed(`partition ${String(partition)} of ${topic} does not exist`)],
      ];
    }),
  );
}

/** The bytes of the messages' keys, values and headers. */
function bytesOf(outgoing: readonly Outgoing[]): number {
  const byteLength = (value: string | Buffer | null | undefined) =>
    value === null || value === undefined ? 0 : Buffer.byteLength(value);
  let bytes = 0;
  for (const { message } of outgoing) {
    bytes += byteLength(message.key) + byteLength(message.value);
    for (const [name, header] of Object.entries(message.headers ?? {}))
      for (const value of [header].flat()) bytes += byteLength(name) + byteLength(value);
  }
  return bytes;
}

function batchOf(outgoing: readonly Outgoing[]): { topicMessages: TopicMessages[] } {
  const byTopic = groupByTopic(outgoing.map(({ topic, message }) => [topic, message] as const));
  return { topicMessages: byTopic.map(({ topic, items }) => ({ topic, messages: items })) };
}
