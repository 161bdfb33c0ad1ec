import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, Consumer } from 'kafkajs';
import type { Logger } from '#shared/logger.ts';
import type { PartitionLag } from '../observability/metrics.ts';

/** A scrape must not wait for the client's retries while the broker is away. */
const LAG_TIMEOUT_MS = 2_000;

/**
 * The lag of the partitions `consumer` owns now (end offset minus the group's committed offset),
 * read from the broker at each call. Only owned partitions: the writers' figures add up to the
 * group's. Empty while the broker does not answer.
 */
export function consumerLag(
  admin: Admin,
  consumer: Consumer,
  groupId: string,
  logger: Logger,
): () => Promise<PartitionLag[]> {
  let owned: Record<string, number[]> = {};
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    owned = payload.memberAssignment;
  });
  consumer.on(consumer.events.STOP, () => {
    owned = {};
  });
  const lagOf = async (topic: string, partitions: readonly number[]) => {
    const [ends, committed] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
    ]);
    const committedOf = new Map(
      committed.flatMap(({ partitions: offsets }) => offsets).map((p) => [p.partition, p.offset]),
    );
    return ends
      .filter(({ partition }) => partitions.includes(partition))
      .map(({ partition, high, low }): PartitionLag => {
        const offset = committedOf.get(partition) ?? '-1';
        const from = offset === '-1' ? BigInt(low) : BigInt(offset);
        return { topic, partition, lag: Number(BigInt(high) - from) };
      });
  };
  return async () => {
    const lags = Promise.all(
      Object.entries(owned).map(([topic, partitions]) => lagOf(topic, partitions)),
    ).then((perTopic) => perTopic.flat());
    // Settled after the timeout, it would otherwise be an unhandled rejection.
    lags.catch(() => undefined);
    try {
      const outcome = await Promise.race([lags, sleep(LAG_TIMEOUT_MS, undefined, { ref: false })]);
      if (outcome !== undefined) return outcome;
      logger.warn('consumer lag not scraped: the broker did not answer in time');
    } catch (error) {
      logger.warn({ err: error }, 'consumer lag not scraped');
    }
    return [];
  };
}
