import { Partitioners, type Kafka } from 'kafkajs';
import type { Db } from 'mongodb';
import { TOPICS, WRITER_GROUP, type Topics } from '../../../shared/contracts/kafka.ts';
import { ensureTopics } from '../../../shared/ensure-topics.ts';
import type { Logger } from '../../../shared/logger.ts';
import { runCommandConsumer } from './command-consumer.ts';
import { plantStore } from './plant-store.ts';

export interface WriterOptions {
  kafka: Kafka;
  /** From a MongoClient created with `useBigInt64: true`. */
  db: Db;
  logger: Logger;
  partitions: number;
  topics?: Topics;
  groupId?: string;
}

export interface Writer {
  /** Finishes the batch in hand, commits it, leaves the group and disconnects. */
  stop(): Promise<void>;
}

export async function startWriter(options: WriterOptions): Promise<Writer> {
  const topics = options.topics ?? TOPICS;
  const { kafka, logger } = options;
  await ensureTopics(kafka, topics, options.partitions);

  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: false,
  });
  const consumer = kafka.consumer({
    groupId: options.groupId ?? WRITER_GROUP,
    // The broker's least (group.min.session.timeout.ms): a writer that dies without leaving the
    // group holds its partitions this long.
    sessionTimeout: 6_000,
    // kafkajs heartbeats only between fetches, and a rebalance is noticed on a heartbeat: a short
    // fetch wait and heartbeat interval let the others take over a stopped writer's partitions
    // within a second (an idle fetch wait of 1 s made it 1.0–1.3 s), and bound how long
    // disconnect() waits for the fetch in flight.
    heartbeatInterval: 100,
    maxWaitTimeInMs: 250,
  });
  await Promise.all([producer.connect(), consumer.connect()]);
  await runCommandConsumer({ consumer, producer, store: plantStore(options.db), topics, logger });
  logger.info({ topic: topics.create }, 'writer consuming create commands');

  return {
    async stop() {
      await consumer.disconnect();
      await producer.disconnect();
    },
  };
}
