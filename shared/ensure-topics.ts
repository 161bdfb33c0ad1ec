import type { Kafka } from 'kafkajs';
import type { Topics } from './contracts/kafka.ts';

/**
 * Creates whichever of the plant store's topics are missing. Both services call it at start-up,
 * so neither depends on the other having started first.
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: Topics,
  partitions: number,
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = [topics.create, topics.replies, topics.dlq].filter(
      (topic) => !existing.has(topic),
    );
    if (missing.length > 0) {
      await admin.createTopics({
        topics: missing.map((topic) => ({ topic, numPartitions: partitions })),
        waitForLeaders: true,
      });
    }
  } finally {
    await admin.disconnect();
  }
}
