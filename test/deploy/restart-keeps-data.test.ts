import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type LocalStack } from '#local/stack.ts';
import { partitioner, testKafka, uniqueName } from '../support/servers/kafka.ts';
import { localServersUnavailable } from '../support/servers/local-servers.ts';

const topic = uniqueName('restart');
const groupId = uniqueName('restart-group');
const database = `restart-${randomUUID()}`;
let dir: string;
let stack: LocalStack;

describe.skipIf(localServersUnavailable)('Local servers stopped and started again', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plant-store-restart-'));
    stack = await startLocalStack({ dir });

    const kafka = testKafka(stack.kafkaBrokers);
    const admin = kafka.admin();
    const producer = kafka.producer({ createPartitioner: partitioner });
    await Promise.all([admin.connect(), producer.connect()]);
    await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
    await producer.send({
      topic,
      acks: -1,
      messages: ['first', 'second', 'third'].map((value) => ({ key: value, value })),
    });
    await admin.setOffsets({ groupId, topic, partitions: [{ partition: 0, offset: '2' }] });
    await Promise.all([admin.disconnect(), producer.disconnect()]);

    const client = new MongoClient(stack.mongoUri, { useBigInt64: true });
    await client
      .db(database)
      .collection<{ _id: bigint; name: string }>('plants')
      .insertOne(
        { _id: 9223372036854775807n, name: 'Monstera' },
        { writeConcern: { w: 'majority' } },
      );
    await client.close();

    await stack.stop();
    stack = await startLocalStack({ dir, ...stack.ports });
  });
  afterAll(async () => {
    await stack.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('When Kafka restarts, then its messages and committed offsets are still there', async () => {
    const kafka = testKafka(stack.kafkaBrokers);
    const consumer = kafka.consumer({ groupId });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received = await new Promise<string>((resolve, reject) => {
      consumer
        .run({
          eachMessage: ({ message }) => {
            resolve(message.value?.toString() ?? '');
            return Promise.resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();

    expect(received).toBe('third');
    expect(offsets).toMatchObject([{ partition: 0, offset: '3' }]);
  });

  it('When the MongoDB-protocol server restarts, then its documents are still there', async () => {
    const client = new MongoClient(stack.mongoUri, { useBigInt64: true });
    const stored = await client.db(database).collection('plants').findOne({});
    await client.close();

    expect(stored).toEqual({ _id: 9223372036854775807n, name: 'Monstera' });
  });
});
