import { Kafka, logLevel } from 'kafkajs';
import type { KafkaConnection } from '../../shared/kafka-connection.ts';

/**
 * Resolves once a consumer group has at least `members` members and a settled assignment;
 * `brokers` alone for a plaintext cluster.
 */
export async function groupIsStable(
  connection: string | KafkaConnection,
  groupId: string,
  members = 1,
): Promise<void> {
  const admin = new Kafka({
    ...(typeof connection === 'string' ? { brokers: [connection] } : connection),
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const [group] = (await admin.describeGroups([groupId])).groups;
    if (group?.state !== 'Stable' || group.members.length < members) {
      throw new Error(`group ${groupId} is not stable with ${members} member(s) yet`);
    }
  } finally {
    await admin.disconnect();
  }
}

/** Resolves once `GET <url>/readyz` answers 2xx. */
export async function httpIsReady(url: string): Promise<void> {
  const response = await fetch(`${url}/readyz`);
  if (!response.ok) throw new Error(`readyz answered ${response.status}`);
}
