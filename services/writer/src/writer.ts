import type { Kafka } from 'kafkajs';
import type { Db, MongoClient } from 'mongodb';
import { TOPICS, WRITER_GROUP, type Topics } from '#shared/contracts/kafka.ts';
import { ensureTopics } from '#shared/kafka/ensure-topics.ts';
import type { Logger } from '#shared/logger.ts';
import { STARTUP_TIMEOUT_MS, startUpWithin, type StartUp } from '#shared/start-up.ts';
import { awayFromStore } from './lanes/away-from-store.ts';
import { runCommandConsumer } from './kafka/command-consumer.ts';
import { ANSWER_LINGER_MAX_MS } from './lanes/lane-tuning.ts';
import { consumerHealth } from './health/consumer-health.ts';
import { consumerLag } from './health/consumer-lag.ts';
import { writerMetrics, type WriterMetrics } from './observability/metrics.ts';
import { timedStore } from './store/timed-store.ts';
import { outgoingSender } from './kafka/outgoing-sender.ts';
import { knownPlants } from './store/known-plants.ts';
import { NEAR_STORE, storeDistance } from './store/store-distance.ts';
import { plantStore } from './store/plant-store.ts';
import { reachOf } from './store/store-reach.ts';

export interface WriterOptions {
  kafka: Kafka;
  /** From a MongoClient created with `useBigInt64: true`. */
  db: Db;
  /** The client of `db`, whose checks of the server tell the store's distance; none: near. */
  storeClient?: Pick<MongoClient, 'on'>;
  logger: Logger;
  partitions: number;
  topics?: Topics;
  groupId?: string;
  /** SESSION_TIMEOUT_MS by default. */
  sessionTimeoutMs?: number;
  /** The longest the writer lingers for more commands before it fetches again; ANSWER_LINGER_MAX_MS by default, 0: never. */
  answerLingerMaxMs?: number;
  /** What waiting for the topics may take: STARTUP_TIMEOUT_MS from the call by default. */
  startUp?: StartUp;
}

export interface Writer {
  readonly metrics: WriterMetrics;
  /** Why the writer cannot take commands (not in its group yet, restarting, stopping), or undefined. */
  notReadyReason(): string | undefined;
  /** Finishes the batch in hand, commits it, leaves the group and disconnects. */
  stop(): Promise<void>;
}

/**
 * The least a stock broker accepts (group.min.session.timeout.ms): a writer that dies without
 * leaving the group holds its partitions this long.
 */
export const SESSION_TIMEOUT_MS = 6_000;
const MAX_FETCH_BYTES = 2 << 20;

export async function startWriter(options: WriterOptions): Promise<Writer> {
  const topics = options.topics ?? TOPICS;
  const { kafka, logger } = options;
  await ensureTopics(kafka, topics, {
    partitions: options.partitions,
    startUp: options.startUp ?? startUpWithin(STARTUP_TIMEOUT_MS, logger),
  });

  const groupId = options.groupId ?? WRITER_GROUP;
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: options.sessionTimeoutMs ?? SESSION_TIMEOUT_MS,
    // kafkajs heartbeats only between fetches, and a rebalance is noticed on a heartbeat: a short
    // fetch wait and heartbeat interval let the others take over a stopped writer's partitions
    // within a second (an idle fetch wait of 1 s did not), and bound how long disconnect()
    // waits for the fetch in flight.
    heartbeatInterval: 100,
    maxWaitTimeInMs: 250,
    // kafkajs's default of 10 MiB decodes into some 100 MiB of message objects when commands are
    // small; the partition lanes bound what waits beyond one fetch.
    maxBytes: MAX_FETCH_BYTES,
  });
  const admin = kafka.admin();
  const health = consumerHealth(consumer);
  const distance =
    options.storeClient === undefined ? NEAR_STORE : storeDistance(options.storeClient);
  const metrics = writerMetrics({
    lags: consumerLag(admin, consumer, groupId, logger),
    // Scraped once the writer runs, when both are defined.
    ready: () => notReadyReason() === undefined,
    storeSilentMs: () => reach.silentForMs(),
    storeRefusingMs: () => reach.refusal()?.forMs ?? 0,
    storeRoundTripMs: () => distance.roundTripMs,
  });
  const { db } = options;
  const { store, reach } = reachOf(timedStore(plantStore(db), metrics.storeDuration), () =>
    db.command({ ping: 1 }),
  );
  let stopped: Promise<void> | undefined;
  const [sender] = await Promise.all([
    outgoingSender(kafka, logger),
    consumer.connect(),
    admin.connect(),
  ]);
  const commands = await runCommandConsumer({
    consumer,
    sender,
    store: knownPlants(store, metrics.plantsRemembered),
    storeDistance: distance,
    topics,
    logger,
    metrics,
    lingerMaxMs: options.answerLingerMaxMs ?? ANSWER_LINGER_MAX_MS,
  });
  const away = awayFromStore({
    reach,
    committed: async () => {
      const [offsets] = await admin.fetchOffsets({ groupId, topics: [topics.create] });
      return new Map(offsets?.partitions.map(({ partition, offset }) => [partition, offset]));
    },
    owned: commands.owned,
    leave: commands.leave,
    rejoin: commands.rejoin,
    logger,
  });
  const notReadyReason = () => health.notReadyReason() ?? away.notReadyReason();
  logger.info({ topic: topics.create }, 'writer consuming create commands');

  return {
    metrics,
    notReadyReason,
    stop() {
      health.stopping();
      away.stop();
      stopped ??= (async () => {
        await commands.stop();
        await consumer.disconnect();
        await Promise.all([sender.disconnect(), admin.disconnect()]);
      })();
      return stopped;
    },
  };
}
