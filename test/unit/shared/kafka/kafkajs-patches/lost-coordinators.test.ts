import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import {
  CoordinatorStillLostError,
  rediscoverLostCoordinators,
} from '#shared/kafka/kafkajs-patches/lost-coordinators.ts';
import { kafkaErrorIsRetriable } from '#shared/kafka/retriable.ts';

const require = createRequire(import.meta.url);
const { createErrorFromCode } = require('kafkajs/src/protocol/error.js') as {
  createErrorFromCode: (code: number) => Error & { type: string };
};
const { isRebalancing } = require('kafkajs/src/errors.js') as {
  isRebalancing: (error: unknown) => boolean;
};
const { prototype } = require('kafkajs/src/consumer/consumerGroup.js') as {
  prototype: { commitOffsets(this: unknown, offsets: object): Promise<void> };
};

const NOT_COORDINATOR = 16;
const ILLEGAL_GENERATION = 22;
const OFFSETS = { topics: [{ topic: 'commands', partitions: [{ partition: 0, offset: '8' }] }] };

/** The parts of kafkajs's consumer group a commit touches, with the answers Kafka gives in turn. */
function consumerGroup(answers: readonly (Error | undefined)[]) {
  const commits = vi.fn((offsets: object) => {
    const answer = answers[commits.mock.calls.length - 1];
    return answer === undefined ? Promise.resolve(offsets) : Promise.reject(answer);
  });
  const newCoordinator = { nodeId: 2 };
  return {
    groupId: 'writers',
    coordinator: { nodeId: 1 },
    offsetManager: { coordinator: { nodeId: 1 }, commitOffsets: commits },
    cluster: { findGroupCoordinator: vi.fn(() => Promise.resolve(newCoordinator)) },
    logger: { warn: vi.fn() },
    commits,
    newCoordinator,
  };
}

describe("A kafkajs consumer group's commit after its coordinator is lost", () => {
  rediscoverLostCoordinators();

  it('When the coordinator is gone, then the commit looks it up and is sent to the one found', async () => {
    const group = consumerGroup([createErrorFromCode(NOT_COORDINATOR)]);

    await prototype.commitOffsets.call(group, OFFSETS);

    expect(group.cluster.findGroupCoordinator).toHaveBeenCalledWith({ groupId: 'writers' });
    expect(group.offsetManager.coordinator).toBe(group.newCoordinator);
    expect(group.commits.mock.calls).toEqual([[OFFSETS], [OFFSETS]]);
  });

  it("When the coordinator found is not the group's coordinator yet either, then the commit fails as retriable and not as a rebalance (kafkajs would join the group again), and the next commit goes through", async () => {
    const group = consumerGroup([
      createErrorFromCode(NOT_COORDINATOR),
      createErrorFromCode(NOT_COORDINATOR),
    ]);

    const failure: unknown = await prototype.commitOffsets
      .call(group, OFFSETS)
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(CoordinatorStillLostError);
    expect(failure).toMatchObject({ cause: { type: 'NOT_COORDINATOR_FOR_GROUP' } });
    expect(isRebalancing(failure)).toBe(false);
    expect(kafkaErrorIsRetriable(failure)).toBe(true);
    await prototype.commitOffsets.call(group, OFFSETS);
    expect(group.commits).toHaveBeenCalledTimes(3);
  });

  it('When the group itself moved on (a new generation), then the commit fails as kafkajs says, so that the member joins again', async () => {
    const group = consumerGroup([createErrorFromCode(ILLEGAL_GENERATION)]);

    const failure: unknown = await prototype.commitOffsets
      .call(group, OFFSETS)
      .catch((error: unknown) => error);

    expect(isRebalancing(failure)).toBe(true);
    expect(group.cluster.findGroupCoordinator).not.toHaveBeenCalled();
    expect(group.commits).toHaveBeenCalledTimes(1);
  });
});
