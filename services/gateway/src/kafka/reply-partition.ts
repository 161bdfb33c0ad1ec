import { createHash } from 'node:crypto';
import { AssignerProtocol, type Kafka, type PartitionAssigner } from 'kafkajs';
import { failOn } from '#shared/config.ts';

/** How a gateway picks the reply partition it reads, and names on every command it sends. */
export interface ReplyPartitionChoice {
  /** REPLY_PARTITION, when set (a StatefulSet's ordinal, or an operator's choice). */
  configured: number | undefined;
  /** What identifies this gateway when nothing is configured: its host name and port. */
  instanceId: string;
}

/**
 * The configured partition, refused when the reply topic has no such partition, or else one the
 * instance id hashes to. Chosen once, at start-up: it does not move when partitions are added.
 */
export function replyPartitionOf(
  choice: ReplyPartitionChoice,
  topic: string,
  partitionCount: number,
): number {
  const { configured, instanceId } = choice;
  if (configured === undefined) {
    return createHash('sha256').update(instanceId).digest().readUInt32BE(0) % partitionCount;
  }
  failOn(
    configured < partitionCount
      ? []
      : [
          `REPLY_PARTITION is ${String(configured)}, but ${topic} has ${String(partitionCount)} partitions (0 to ${String(partitionCount - 1)}): add partitions to it, or choose one of those`,
        ],
  );
  return configured;
}

/** How many partitions `topic` has now. */
export async function partitionCountOf(kafka: Kafka, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    return topics[0]?.partitions.length ?? 0;
  } finally {
    await admin.disconnect();
  }
}

/**
 * Assigns `partition` of `topic`, and nothing else, to the gateway's reply consumer: the group is
 * the gateway's own, so it never rebalances against another gateway, and kafkajs, which has no
 * `assign()`, chooses partitions only through an assigner.
 */
export function onePartitionAssigner(topic: string, partition: number): PartitionAssigner {
  return () => ({
    name: 'PlantStoreReplyPartition',
    version: 0,
    assign({ members }) {
      return Promise.resolve(
        members.map(({ memberId }) => ({
          memberId,
          memberAssignment: AssignerProtocol.MemberAssignment.encode({
            version: 0,
            assignment: { [topic]: [partition] },
            userData: Buffer.alloc(0),
          }),
        })),
      );
    },
    protocol({ topics }) {
      return {
        name: 'PlantStoreReplyPartition',
        metadata: AssignerProtocol.MemberMetadata.encode({
          version: 0,
          topics,
          userData: Buffer.alloc(0),
        }),
      };
    },
  });
}
