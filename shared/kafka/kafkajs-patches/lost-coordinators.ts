import type { Broker } from 'kafkajs';
import { prototypeToPatch } from './version-guard.ts';

/**
 * How long a fetch refused by a dead leader waits before the next: until the controller moves its
 * partitions (`broker.session.timeout.ms`, 3 s locally, 9 s by default), metadata still names it.
 */
const REFUSED_FETCH_PAUSE_MS = 250;

/** What this module uses of kafkajs's internal ConsumerGroup (src/consumer/consumerGroup.js). */
interface ConsumerGroup {
  groupId: string;
  coordinator: Broker | null;
  offsetManager: { coordinator: Broker } | null;
  cluster: {
    findGroupCoordinator(args: { groupId: string }): Promise<Broker>;
    refreshMetadata(): Promise<void>;
  };
  logger: { warn(message: string, extra?: object): void };
  heartbeat: (this: ConsumerGroup, args: { interval: number }) => Promise<void>;
  commitOffsets: (this: ConsumerGroup, offsets?: object) => Promise<void>;
  commitOffsetsIfNecessary: (this: ConsumerGroup) => Promise<void>;
  recoverFromFetch: (this: ConsumerGroup, error: unknown) => Promise<void>;
}

/** A request the coordinator did not answer because it is gone, moved or not ready. */
const LOST_COORDINATOR_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
]);
const LOST_COORDINATOR_TYPES = new Set([
  'NOT_COORDINATOR_FOR_GROUP',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'GROUP_LOAD_IN_PROGRESS',
]);

function lostCoordinator(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { name, type } = error as { name?: unknown; type?: unknown };
  return (
    (typeof name === 'string' && LOST_COORDINATOR_NAMES.has(name)) ||
    (typeof type === 'string' && LOST_COORDINATOR_TYPES.has(type))
  );
}

/**
 * A commit that found its coordinator gone again just after looking it up: the cluster has not
 * settled yet (the dead node not fenced, or the new coordinator not acting yet). Retriable, and
 * not NOT_COORDINATOR_FOR_GROUP, which kafkajs's fetch loop takes for a rebalance and answers by
 * joining again: the loop tries once more after its back-off, the offsets still pending.
 * @internal Exported because the patch's unit test tells it from a rebalance.
 */
export class CoordinatorStillLostError extends Error {
  readonly retriable = true;
  constructor(groupId: string, cause: unknown) {
    super(`the group coordinator of ${groupId} is still not reachable`, { cause });
    this.name = 'CoordinatorStillLostError';
  }
}

/** The lookup under way for each group, shared by every heartbeat and commit that lost it. */
const lookups = new WeakMap<ConsumerGroup, Promise<void>>();
/** A lookup that gave up (the cluster client's retries spent): the next heartbeat throws it. */
const failedLookups = new WeakMap<ConsumerGroup, Error>();

function lookUpCoordinator(group: ConsumerGroup, error: unknown): Promise<void> {
  const running = lookups.get(group);
  if (running !== undefined) return running;
  group.logger.warn('Lost the group coordinator, looking it up again', {
    groupId: group.groupId,
    error: error instanceof Error ? error.message : String(error),
  });
  const lookup = (async () => {
    try {
      const coordinator = await group.cluster.findGroupCoordinator({ groupId: group.groupId });
      group.coordinator = coordinator;
      if (group.offsetManager !== null) group.offsetManager.coordinator = coordinator;
    } catch (failure) {
      failedLookups.set(group, failure instanceof Error ? failure : new Error(String(failure)));
      throw failure;
    } finally {
      lookups.delete(group);
    }
  })();
  lookups.set(group, lookup);
  return lookup;
}

/**
 * kafkajs 2.2.4 caches a consumer group's coordinator from its join and sends every heartbeat and
 * commit there: when that broker dies, each fails (connection refused) and counts against the
 * consumer's retries until the consumer crashes, restarts as a new member and joins again, which
 * the old members' sessions hold up for seconds (`npm run chaos -- --scenario broker`). The fetch loop
 * has the same trap for a dead partition leader: a refused connection is not one of the errors it
 * recovers from, so it too spends the retries, and heartbeats (sent only from that loop) stop.
 *
 * From here on, for every kafkajs consumer in the process: a heartbeat or commit that finds its
 * coordinator gone looks it up again at once (FindCoordinator, with the client's retry settings)
 * and keeps the member: heartbeats are skipped while the lookup runs, so fetching goes on, and a
 * commit waits for it and is sent once more; lost again, it fails as retriable, never as a
 * rebalance. A fetch refused by a dead leader refreshes metadata and heartbeats instead of
 * failing the loop. kafkajs issue 1069 and pull request 1779 describe the same gap; neither is in
 * a release.
 */
export function rediscoverLostCoordinators(): void {
  const prototype = prototypeToPatch(
    'src/consumer/consumerGroup.js',
    'shared/kafka/kafkajs-patches/lost-coordinators.ts',
  ) as ConsumerGroup | undefined;
  if (prototype === undefined) return;
  const { heartbeat, commitOffsets, commitOffsetsIfNecessary, recoverFromFetch } = prototype;

  prototype.heartbeat = async function (this: ConsumerGroup, args) {
    const failed = failedLookups.get(this);
    if (failed !== undefined) {
      failedLookups.delete(this);
      throw failed;
    }
    if (lookups.has(this)) return;
    try {
      await heartbeat.call(this, args);
    } catch (error) {
      if (!lostCoordinator(error)) throw error;
      lookUpCoordinator(this, error).catch(() => undefined);
    }
  };

  const commitOnce = <A extends unknown[]>(
    commit: (this: ConsumerGroup, ...args: A) => Promise<void>,
  ) =>
    async function (this: ConsumerGroup, ...args: A) {
      try {
        await commit.apply(this, args);
      } catch (error) {
        if (!lostCoordinator(error)) throw error;
        await lookUpCoordinator(this, error);
        try {
          await commit.apply(this, args);
        } catch (again) {
          if (!lostCoordinator(again)) throw again;
          throw new CoordinatorStillLostError(this.groupId, again);
        }
      }
    };
  prototype.commitOffsets = commitOnce(commitOffsets);
  prototype.commitOffsetsIfNecessary = commitOnce(commitOffsetsIfNecessary);

  prototype.recoverFromFetch = async function (this: ConsumerGroup, error) {
    // kafkajs itself handles a connection closed under a fetch, not one refused when reconnecting.
    if (!(error instanceof Error) || error.name !== 'KafkaJSConnectionError')
      return recoverFromFetch.call(this, error);
    await this.cluster.refreshMetadata();
    await new Promise((resolve) => setTimeout(resolve, REFUSED_FETCH_PAUSE_MS));
  };
}
