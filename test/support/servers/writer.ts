import { randomBytes, randomUUID } from 'node:crypto';
import type { IHeaders, Kafka, KafkaMessage, Producer } from 'kafkajs';
import { MongoClient, type Db } from 'mongodb';
import { inject, onTestFinished } from 'vitest';
import { replyPartitionHeader, type Topics } from '#shared/contracts/kafka.ts';
import { ensureTopics } from '#shared/kafka/ensure-topics.ts';
import { STARTUP_TIMEOUT_MS, startUpWithin } from '#shared/start-up.ts';
import { kafkaClient } from '#shared/kafka/client.ts';
import { createLogger, type Logger } from '#shared/logger.ts';
import type { WriterMetrics } from '#writer/observability/metrics.ts';
import { startWriter, type Writer, type WriterOptions } from '#writer/writer.ts';
import { parseMetrics, type Sample } from '../checks/metrics.ts';
import { aPlant } from '../clients/plants.ts';
import { partitioner, uniqueName } from './kafka.ts';

export const PARTITIONS = 3;

export interface ReceivedMessage {
  partition: number;
  message: KafkaMessage;
}

/** Where teardown goes: the test's own `onTestFinished`, or a suite's `afterAll` for a harness it shares. */
export type RegisterCleanup = (cleanup: () => Promise<void>) => void;

export interface WriterHarness {
  kafka: Kafka;
  topics: Topics;
  db: Db;
  producer: Producer;
  /** Produces one create command asking for a reply on `replyPartition` of the reply topic. */
  sendCommand(key: string, value: string | Buffer, replyPartition?: number): Promise<void>;
  /** Every message that arrived on `topic` so far, waiting until there are `count`. */
  received(topic: string, count: number): Promise<ReceivedMessage[]>;
  /** The first message on `topic` that `matches`, waiting for it. */
  arrival(topic: string, matches: (message: KafkaMessage) => boolean): Promise<ReceivedMessage>;
  /** The running writer's metrics now (none with `writer: false`). */
  scrape(): Promise<Sample[]>;
}

/**
 * A writer on topics, a group and a database of this test's own, torn down when it ends; with
 * `writer: false`, only its topics (nobody answers commands). Every message on the create, reply
 * and DLQ topics is observed.
 */
export async function startTestWriter({
  writer: running = true,
  logger = createLogger('writer', 'warn'),
  registerCleanup = onTestFinished,
  brokers = inject('kafkaBrokers'),
}: {
  writer?: boolean;
  logger?: Logger;
  registerCleanup?: RegisterCleanup;
  /** A Kafka of the test's own instead of the run's. */
  brokers?: string;
} = {}): Promise<WriterHarness> {
  const kafka = kafkaClient('writer-test', { brokers: brokers.split(',') }, logger);
  const client = new MongoClient(inject('mongoUri'), { useBigInt64: true });
  const db = client.db(`test-${randomUUID()}`);
  const prefix = uniqueName('test');
  const topics: Topics = {
    create: `${prefix}.create`,
    replies: `${prefix}.replies`,
    dlq: `${prefix}.dlq`,
  };
  const writer: Pick<Writer, 'stop'> & { metrics?: WriterMetrics } = running
    ? await startWriter(writerOptions({ kafka, db, topics }, { logger }))
    : await createTopicsOnly(kafka, topics);
  const producer = kafka.producer({ createPartitioner: partitioner });
  const observer = kafka.consumer({ groupId: uniqueName('observer'), maxWaitTimeInMs: 100 });
  await Promise.all([producer.connect(), observer.connect()]);
  await observer.subscribe({
    topics: [topics.create, topics.replies, topics.dlq],
    fromBeginning: true,
  });
  const seen = new Map<string, ReceivedMessage[]>();
  const waiters = new Set<() => void>();
  await observer.run({
    eachMessage: ({ topic, partition, message }) => {
      const messages = seen.get(topic) ?? [];
      messages.push({ partition, message });
      seen.set(topic, messages);
      for (const check of waiters) check();
      return Promise.resolve();
    },
  });
  registerCleanup(async () => {
    await Promise.all([writer.stop(), producer.disconnect(), observer.disconnect()]);
    await db.dropDatabase();
    await client.close();
  });
  return {
    kafka,
    topics,
    db,
    producer,
    sendCommand: async (key, value, replyPartition = 0) => {
      await producer.send({
        topic: topics.create,
        messages: [
          {
            key,
            value,
            headers: replyHeaders(topics.replies, replyPartitionHeader(replyPartition)),
          },
        ],
      });
    },
    received: (topic, count) =>
      new Promise((resolve) => {
        const check = () => {
          const messages = seen.get(topic) ?? [];
          if (messages.length >= count) {
            waiters.delete(check);
            resolve(messages);
          }
        };
        waiters.add(check);
        check();
      }),
    arrival: (topic, matches) =>
      new Promise((resolve) => {
        const check = () => {
          const found = seen.get(topic)?.find(({ message }) => matches(message));
          if (found !== undefined) {
            waiters.delete(check);
            resolve(found);
          }
        };
        waiters.add(check);
        check();
      }),
    scrape: async () => parseMetrics((await writer.metrics?.registry.metrics()) ?? ''),
  };
}

/** A writer on the harness's topics and database, in a consumer group of its own. */
export function writerOptions(
  harness: Pick<WriterHarness, 'kafka' | 'db' | 'topics'>,
  overrides: Partial<WriterOptions> = {},
): WriterOptions & { groupId: string } {
  return {
    kafka: harness.kafka,
    db: harness.db,
    topics: harness.topics,
    groupId: uniqueName('writers'),
    partitions: PARTITIONS,
    logger: createLogger('writer', 'warn'),
    ...overrides,
  };
}

/**
 * Produces `count` create commands while no writer may be running, in sends of 5,000, every one
 * asking for its reply on partition 0 of the reply topic.
 */
export async function produceBacklog(
  { producer, topics }: Pick<WriterHarness, 'producer' | 'topics'>,
  count: number,
): Promise<void> {
  const perSend = 5_000;
  for (let sent = 0; sent < count; sent += perSend) {
    await producer.send({
      topic: topics.create,
      messages: Array.from({ length: Math.min(perSend, count - sent) }, () => {
        const plant = aPlant();
        return {
          key: String(plant.id),
          value: plant.body,
          headers: replyHeaders(topics.replies, replyPartitionHeader(0)),
        };
      }),
    });
  }
}

/** The names of the plants the replies answered 200, each once. */
export function namesAnswered200(replies: readonly ReceivedMessage[]): Set<string> {
  return new Set(
    replies.flatMap(({ message }) => {
      const reply = JSON.parse(message.value?.toString() ?? '{}') as {
        status?: number;
        plant?: { name: string };
      };
      return reply.status === 200 && reply.plant !== undefined ? [reply.plant.name] : [];
    }),
  );
}

export function replyHeaders(
  replyTopic: string,
  partition: Buffer | string,
): IHeaders & { kafka_correlationId: Buffer } {
  return {
    kafka_correlationId: Buffer.concat([Buffer.from([0x00, 0xff]), randomBytes(14)]),
    kafka_replyTopic: replyTopic,
    kafka_replyPartition: partition,
  };
}

export function json(received: ReceivedMessage | undefined): unknown {
  return JSON.parse(received?.message.value?.toString() ?? 'null');
}

async function createTopicsOnly(kafka: Kafka, topics: Topics): Promise<{ stop(): Promise<void> }> {
  await ensureTopics(kafka, topics, {
    partitions: PARTITIONS,
    startUp: startUpWithin(STARTUP_TIMEOUT_MS, createLogger('writer-test', 'warn')),
  });
  return { stop: () => Promise.resolve() };
}
