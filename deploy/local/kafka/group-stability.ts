import { AssignerProtocol, Kafka, logLevel, type GroupDescription } from 'kafkajs';
import type { KafkaConnection } from '#shared/kafka/connection.ts';

/**
 * Resolves once a consumer group has at least `members` members and a settled assignment;
 * `brokers` alone for a plaintext cluster. Otherwise the error says what the group looks like.
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
      throw new Error(
        `group ${groupId} is not stable with ${members} member(s) yet: ${describeGroup(group)}`,
      );
    }
  } finally {
    await admin.disconnect();
  }
}

/** A group's state and each member's host and partitions, as the coordinator sees them. */
export function describeGroup(group: GroupDescription | undefined): string {
  if (group === undefined) return 'the coordinator does not describe it';
  const members = group.members.map(({ memberId, clientHost, memberAssignment }) => {
    const assignment: Record<string, number[]> =
      memberAssignment.length === 0
        ? {}
        : (AssignerProtocol.MemberAssignment.decode(memberAssignment)?.assignment ?? {});
    const partitions = Object.entries(assignment)
      .map(([topic, numbers]) => `${topic} [${numbers.join(', ')}]`)
      .join(', ');
    return `${memberId} on ${clientHost}: ${partitions || 'no partitions'}`;
  });
  return `${group.state} with ${String(group.members.length)} member(s)${members.length > 0 ? ` (${members.join('; ')})` : ''}`;
}
