import { AssignerProtocol, type Cluster, type Logger } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { onePartitionAssigner, replyPartitionOf } from '#gateway/kafka/reply-partition.ts';
import { readReplyPartition, replyPartitionHeader } from '#shared/contracts/kafka.ts';

describe('The reply partition a gateway reads', () => {
  it('When REPLY_PARTITION names a partition of the reply topic, then that one is read', () => {
    expect(replyPartitionOf({ configured: 11, instanceId: 'a' }, 'replies', 12)).toBe(11);
  });

  it('When REPLY_PARTITION is at or past the partition count, then start-up is refused, naming both', () => {
    expect(() => replyPartitionOf({ configured: 12, instanceId: 'a' }, 'replies', 12)).toThrow(
      'Invalid configuration: REPLY_PARTITION is 12, but replies has 12 partitions (0 to 11): add partitions to it, or choose one of those',
    );
  });

  it('When none is configured, then the instance id hashes to one, the same at every start, and ids spread over the partitions', () => {
    const chosen = (instanceId: string) =>
      replyPartitionOf({ configured: undefined, instanceId }, 'replies', 12);
    expect(chosen('gateway-a:3000')).toBe(chosen('gateway-a:3000'));
    const spread = new Set(Array.from({ length: 200 }, (_, index) => chosen(`host:${index}`)));
    expect([...spread].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('When the gateway names it on a command, then it is the 4-byte big-endian integer Spring sends, read back as itself', () => {
    expect(replyPartitionHeader(258)).toEqual(Buffer.from([0, 0, 1, 2]));
    expect(readReplyPartition(replyPartitionHeader(7))).toBe(7);
  });
});

describe('The reply consumer’s assigner', () => {
  it('When its group joins, then its member is assigned the chosen partition of the reply topic and nothing else', async () => {
    const assigner = onePartitionAssigner(
      'replies',
      5,
    )({
      cluster: {} as Cluster,
      groupId: 'plant-gateway-1',
      logger: {} as Logger,
    });
    const metadata = assigner.protocol({ topics: ['replies'] }).metadata;
    const [assignment, ...others] = await assigner.assign({
      members: [{ memberId: 'm-1', memberMetadata: metadata }],
      topics: ['replies'],
    });

    expect(others).toEqual([]);
    expect(assignment?.memberId).toBe('m-1');
    expect(
      AssignerProtocol.MemberAssignment.decode(assignment?.memberAssignment ?? Buffer.alloc(0))
        ?.assignment,
    ).toEqual({ replies: [5] });
  });
});
