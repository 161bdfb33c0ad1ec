import { AssignerProtocol, Kafka, logLevel, Partitioners, type Admin } from 'kafkajs';
import type { KafkaConnection } from '#shared/kafka/connection.ts';

export interface GroupState {
  stable: boolean;
  /** Each member's partitions of `topic`, by member id. */
  members: Map<string, number[]>;
}

/** Short-lived admin connections to the cluster under test. */
export function clusterFacts(connection: KafkaConnection) {
  const withAdmin = async <T>(use: (admin: Admin) => Promise<T>): Promise<T> => {
    const admin = new Kafka({ ...connection, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      return await use(admin);
    } finally {
      await admin.disconnect();
    }
  };
  return {
    group: (groupId: string, topic: string): Promise<GroupState> =>
      withAdmin(async (admin) => {
        const [group] = (await admin.describeGroups([groupId])).groups;
        return {
          stable: group?.state === 'Stable',
          members: new Map(
            (group?.members ?? []).map(({ memberId, memberAssignment }) => [
              memberId,
              memberAssignment.length === 0
                ? []
                : (AssignerProtocol.MemberAssignment.decode(memberAssignment)?.assignment[topic] ??
                  []),
            ]),
          ),
        };
      }),
    /** The group's committed offset of each partition of `topic`. */
    committed: (groupId: string, topic: string): Promise<Record<number, string>> =>
      withAdmin(async (admin) => {
        const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
        return Object.fromEntries(
          (offsets?.partitions ?? []).map(({ partition, offset }) => [partition, offset]),
        );
      }),
    /** The node leading the most partitions of `topic`. */
    busiestLeader: (topic: string): Promise<number> =>
      withAdmin(async (admin) => {
        const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
        const led = new Map<number, number>();
        for (const { leader } of (metadata?.partitions ?? []).filter(({ leader }) => leader >= 0))
          led.set(leader, (led.get(leader) ?? 0) + 1);
        const [busiest] = [...led].toSorted(([, a], [, b]) => b - a);
        if (busiest === undefined) throw new Error(`${topic} has no partition leaders`);
        return busiest[0];
      }),
  };
}

/** The partition the services' producers (murmur2 of the id, like Java's) put an id's command on. */
export function commandPartitioner(partitions: number): (id: bigint) => number {
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: 1,
    replicas: [1],
    isr: [1],
  }));
  return (id) =>
    partitioner({
      topic: 'plants.create',
      partitionMetadata,
      message: { key: id.toString(), value: null },
    });
}
