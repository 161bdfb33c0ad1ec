import { randomUUID } from 'node:crypto';
import { Kafka, logLevel, Partitioners, type Admin } from 'kafkajs';
import { inject, onTestFinished } from 'vitest';

export function testKafka(brokers: string = inject('kafkaBrokers')): Kafka {
  return new Kafka({ clientId: 'plant-store-tests', brokers: [brokers], logLevel: logLevel.WARN });
}

export function uniqueName(prefix: string): string {
  return `${prefix}.${randomUUID()}`;
}

export const partitioner = Partitioners.DefaultPartitioner;

/** A topic of this test's own, deleted when the test ends. */
export async function createTestTopic(admin: Admin, numPartitions = 1): Promise<string> {
  const topic = uniqueName('test');
  await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
  onTestFinished(async () => {
    await admin.deleteTopics({ topics: [topic] });
  });
  return topic;
}
