import type { Kafka } from 'kafkajs';
import type { Topics } from './contracts/kafka.ts';

/**
 * A dead letter is the command as received plus the writer's headers saying why, so it can be
 * larger than the command topic allows: room for commands of up to 8 MiB.
 */
export const DLQ_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
const DLQ_CONFIG = [{ name: 'max.message.bytes', value: String(DLQ_MAX_MESSAGE_BYTES) }];

/**
 * Creates whichever of the plant store's topics a service uses are missing (`used`: all three by
 * default). Both services call it at start-up, so neither depends on the other having started
 * first. A principal sees only the topics its ACLs let it describe, so each asks only for its own:
 * on a secured cluster where they exist already, nobody needs the right to create topics.
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: Topics,
  partitions: number,
  used: readonly (keyof Topics)[] = ['create', 'replies', 'dlq'],
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = used.map((name) => topics[name]).filter((topic) => !existing.has(topic));
    if (missing.length > 0) {
      await admin.createTopics({
        topics: missing.map((topic) => ({
          topic,
          numPartitions: partitions,
          ...(topic === topics.dlq ? { configEntries: DLQ_CONFIG } : {}),
        })),
        waitForLeaders: true,
      });
    }
  } finally {
    await admin.disconnect();
  }
}
