import type { Consumer, KafkaMessage } from 'kafkajs';
import { decodeNewPlant } from '#shared/contracts/new-plant.ts';
import { nextOffset } from '#shared/kafka/messages.ts';
import { answerBatch, type Answering } from '../answering/answer-batch.ts';
import { createPlants } from '../store/create-plants.ts';
import type { PlantStore } from '../store/plant-store.ts';
import { sharedInserts } from '../store/shared-inserts.ts';
import type { StoreDistance } from '../store/store-distance.ts';
import { restartAfterCrashes } from './consumer-restarts.ts';
import { offsetCommits } from './offset-commits.ts';
import { partitionLanes } from '../lanes/partition-lanes.ts';

export interface CommandConsumer {
  /** The command partitions this writer owns now. */
  readonly owned: () => readonly number[];
  /** Commits what is answered, drops the rest of the work in hand and leaves the group. */
  readonly leave: () => Promise<void>;
  /** Joins the group again after `leave`. */
  readonly rejoin: () => Promise<void>;
  /** Finishes the work in hand and restarts no more: then the consumer may disconnect. */
  stop(): Promise<void>;
}

export interface CommandConsumerDeps extends Omit<Answering, 'createPlants'> {
  consumer: Pick<
    Consumer,
    'subscribe' | 'run' | 'stop' | 'seek' | 'on' | 'events' | 'connect' | 'disconnect'
  >;
  store: PlantStore;
  /** Whether the store is far (store-distance.ts). */
  storeDistance: StoreDistance;
  /** The longest the writer lingers for more commands before it fetches again; 0: never. */
  lingerMaxMs: number;
}

/** How many partitions' batches kafkajs hands over at once; each is queued on its lane. */
const PARTITIONS_AT_ONCE = 16;
/** How long an answered batch waits at most for its commit, shared with the batches answered meanwhile. */
const COMMIT_INTERVAL_MS = 100;

/**
 * A command's plant id, what its lane orders it by beyond its offset; none for a command that
 * does not decode (it is answered 400 and stores nothing).
 */
function plantIdOf(message: KafkaMessage): string | undefined {
  const checked = decodeNewPlant(message.value);
  return checked.ok ? String(checked.plant.id) : undefined;
}

/**
 * Consumes create commands: kafkajs hands over each partition's batches, which are answered in
 * order on a lane of their own (lanes/partition-lanes.ts), so a slow batch holds only its partition;
 * the batches of several partitions in hand at once share the inserts, the sends and the commits
 * (ids never span partitions, so per-id order holds). Each batch is answered (answer-batch.ts),
 * and only then committed, in one request with every batch answered within COMMIT_INTERVAL_MS
 * (offset-commits.ts). A batch that fails (the store is down) is neither answered nor committed,
 * so it is processed again after recovery. A consumer kafkajs gave up on is started again
 * (consumer-restarts.ts).
 */
export async function runCommandConsumer(deps: CommandConsumerDeps): Promise<CommandConsumer> {
  const { consumer, logger } = deps;
  const { storeDistance } = deps;
  const store = sharedInserts(deps.store, storeDistance);
  const answering: Answering = {
    ...deps,
    createPlants: (plants, inserted) => createPlants(plants, store, inserted),
  };
  const commits = offsetCommits(COMMIT_INTERVAL_MS, (error, offsets) => {
    logger.warn(
      {
        err: error,
        offsets: offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset })),
      },
      'commit of answered batches failed',
    );
  });
  const lanes = partitionLanes(
    consumer,
    {
      answer: async ({ topic, partition, messages, payload, stopping }) => {
        const keepTrying = () => !stopping.aborted && payload.isRunning();
        await answerBatch({ topic, partition, messages, keepTrying }, answering);
      },
      // Not committed if the partition is given away first: its next owner commits it, and this
      // writer's commit could move its offset back.
      answered: ({ topic, partition, messages, payload, givenAway }) => {
        const last = messages.at(-1);
        if (last === undefined) return;
        commits.answered({
          topic,
          partition,
          offset: nextOffset(last.offset),
          payload,
          current: () => !givenAway.aborted,
        });
      },
      keyOf: plantIdOf,
    },
    logger,
    { lingerMaxMs: deps.lingerMaxMs, storeDistance },
  );
  consumer.on(consumer.events.REBALANCING, () => {
    void commits.flush();
  });
  let owned: readonly number[] = [];
  let memberId: string | undefined;
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    owned = payload.memberAssignment[deps.topics.create] ?? [];
    // Joined as a new member (its session expired while the process was frozen, or it left):
    // others may have owned its partitions since, and moved their offsets on. Nothing answered
    // before may be committed, nor read on from where this writer was: kafkajs reads each
    // partition again from its committed offset.
    if (memberId !== undefined && memberId !== payload.memberId) lanes.assigned({});
    memberId = payload.memberId;
    lanes.assigned(payload.memberAssignment);
  });
  consumer.on(consumer.events.STOP, () => {
    owned = [];
  });
  await consumer.subscribe({ topic: deps.topics.create, fromBeginning: true });
  const run = () =>
    consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: PARTITIONS_AT_ONCE,
      eachBatch: (payload) => lanes.accept(payload),
    });
  const restarts = restartAfterCrashes(consumer, run, logger);
  await run();
  return {
    owned: () => owned,
    leave: async () => {
      await commits.flush();
      lanes.assigned({});
      await consumer.stop();
    },
    rejoin: run,
    async stop() {
      await Promise.all([lanes.stop(), restarts.stop()]);
      await commits.close();
    },
  };
}
