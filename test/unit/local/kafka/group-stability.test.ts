import { AssignerProtocol, type GroupDescription } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { describeMembers } from '#chaos/stack/fleet.ts';
import { describeGroup } from '#local/kafka/group-stability.ts';

function member(memberId: string, assignment: Record<string, number[]>) {
  return {
    memberId,
    clientId: 'plant-store-writer',
    clientHost: '/127.0.0.1',
    memberMetadata: Buffer.alloc(0),
    memberAssignment:
      Object.keys(assignment).length === 0
        ? Buffer.alloc(0)
        : AssignerProtocol.MemberAssignment.encode({
            version: 0,
            assignment,
            userData: Buffer.alloc(0),
          }),
  };
}

describe('What a start-up wait that failed says it saw', () => {
  it('When the writers’ group is rebalancing, then the wait names its state, each member and its partitions', () => {
    const group: GroupDescription = {
      groupId: 'plant-writers',
      state: 'PreparingRebalance',
      protocolType: 'consumer',
      protocol: '',
      members: [member('writer-a', { 'plants.create': [0, 1, 2] }), member('writer-b', {})],
    };

    expect(describeGroup(group)).toBe(
      'PreparingRebalance with 2 member(s) (writer-a on /127.0.0.1: plants.create [0, 1, 2]; writer-b on /127.0.0.1: no partitions)',
    );
    expect(describeGroup(undefined)).toBe('the coordinator does not describe it');
  });

  it('When the chaos fleet’s group has not settled, then the wait names each member’s partitions', () => {
    expect(
      describeMembers({
        stable: false,
        members: new Map([
          ['writer-a', [0, 1]],
          ['writer-b', []],
        ]),
      }),
    ).toBe('rebalancing with 2 member(s) (partitions writer-a: 0, 1; writer-b: none)');
    expect(describeMembers({ stable: true, members: new Map() })).toBe('stable with 0 member(s)');
  });
});
