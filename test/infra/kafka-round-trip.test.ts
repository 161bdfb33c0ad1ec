import { randomBytes } from 'node:crypto';
import type { IHeaders, KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTopic, partitioner, testKafka, uniqueName } from '../support/servers/kafka.ts';

const kafka = testKafka();
const admin = kafka.admin();
const producer = kafka.producer({ createPartitioner: partitioner });

beforeAll(async () => {
  await Promise.all([admin.connect(), producer.connect()]);
});
afterAll(async () => {
  await Promise.all([admin.disconnect(), producer.disconnect()]);
});

function replyPartitionHeader(partition: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32BE(partition);
  return bytes;
}

describe('Kafka', () => {
  it('When keyed messages with binary headers are produced, then a consumer group reads them byte-identical', async () => {
    const topic = await createTestTopic(admin, 3);
    const sent = ['9223372036854775807', '1', '42', '42'].map((key) => ({
      key,
      value: randomBytes(64),
      headers: {
        kafka_correlationId: Buffer.concat([Buffer.from([0x00, 0xff]), randomBytes(14)]),
        kafka_replyPartition: replyPartitionHeader(2),
        'content-type': 'application/json',
      },
    }));
    await producer.send({ topic, acks: -1, messages: sent });

    const consumer = kafka.consumer({ groupId: uniqueName('test-group') });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const received: { partition: number; message: KafkaMessage }[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          eachMessage: ({ partition, message }) => {
            received.push({ partition, message });
            if (received.length === sent.length) resolve();
            return Promise.resolve();
          },
        })
        .catch(reject);
    });
    await consumer.disconnect();

    const byCorrelationId = (headers: IHeaders | undefined) =>
      (headers?.kafka_correlationId as Buffer).toString('hex');
    for (const expected of sent) {
      const match = received.find(
        ({ message }) =>
          byCorrelationId(message.headers) === expected.headers.kafka_correlationId.toString('hex'),
      );
      expect(match?.message.key?.toString()).toBe(expected.key);
      expect(match?.message.value?.equals(expected.value)).toBe(true);
      expect(match?.message.headers?.kafka_replyPartition).toEqual(
        expected.headers.kafka_replyPartition,
      );
      expect(match?.message.headers?.['content-type']?.toString()).toBe('application/json');
    }
    const partitionsOf42 = new Set(
      received
        .filter(({ message }) => message.key?.toString() === '42')
        .map(({ partition }) => partition),
    );
    expect(partitionsOf42.size).toBe(1);
  });
});
