import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, KafkaMessage } from 'kafkajs';
import { coalescer } from '../../../shared/coalescer.ts';
import { HEADERS, type Topics } from '../../../shared/contracts/kafka.ts';
import { decodeNewPlant } from '../../../shared/contracts/new-plant.ts';
import type { NewPlant } from '../../../shared/contracts/plant.ts';
import type { Reply } from '../../../shared/contracts/reply.ts';
import type { Logger } from '../../../shared/logger.ts';
import { firstHeader, headerText, nextOffset } from '../../../shared/kafka-messages.ts';
import { traceLogFields } from '../../../shared/tracing.ts';
import { withCommandSpans, type CommandSpans } from './command-spans.ts';
import { restartAfterCrashes } from './consumer-restarts.ts';
import { createPlants } from './create-plants.ts';
import type { WriterMetrics } from './metrics.ts';
import type { Outgoing, OutgoingSender } from './outgoing-sender.ts';
import type { PlantStore } from './plant-store.ts';
import {
  invalidCommandCopy,
  replyTo,
  undeliverableReplyCopy,
  type Undeliverable,
} from './outgoing-messages.ts';
import { offsetCommits, type OffsetCommits } from './offset-commits.ts';
import { partitionLanes, type LaneWork, type PartitionLanes } from './partition-lanes.ts';

export interface CommandConsumer {
  /** Finishes the work in hand and restarts no more: then the consumer may disconnect. */
  stop(): Promise<void>;
}

export interface CommandConsumerDeps {
  consumer: Pick<
    Consumer,
    'subscribe' | 'run' | 'seek' | 'on' | 'events' | 'connect' | 'disconnect'
  >;
  sender: OutgoingSender;
  store: PlantStore;
  topics: Pick<Topics, 'create' | 'dlq'>;
  logger: Logger;
  metrics: Pick<
    WriterMetrics,
    | 'batchSize'
    | 'batchDuration'
    | 'commands'
    | 'deadLetters'
    | 'storeRetries'
    | 'undeliverableReplies'
    | 'sendRetries'
    | 'replyDelay'
  >;
}

/** How many partitions' batches kafkajs hands over at once; each is queued on its lane. */
const PARTITIONS_AT_ONCE = 16;
/**
 * Inserts in flight at once: a slow one (duplicates) holds only the batches it carries. The
 * batches of one fetch are gathered into one insert, and their replies into one send, so a
 * duplicate on one partition delays the fresh creates the same fetch brought for the others,
 * by one chunk's re-insert; under load that gathering took the broker from 161 to 90 produce
 * requests per 1,000 creates (docs/performance.md).
 */
const INSERTS_AT_ONCE = 2;
const RETRY_MS = 500;
/** How long an answered batch waits at most for its commit, shared with the batches answered meanwhile. */
const COMMIT_INTERVAL_MS = 100;

/** Whether commands that wait for the store or Kafka should go on waiting. */
type KeepTrying = () => boolean;

/**
 * Consumes create commands a batch per partition: one insert, an indexed read of each id that
 * was stored before, one send of every reply and DLQ copy (acks=all), and only then its commit,
 * in one request with every batch answered within COMMIT_INTERVAL_MS (offset-commits.ts).
 * Each partition's batches are answered in order on a lane of their own, so a slow batch holds
 * only its partition; the batches of several partitions in hand at once share the inserts, the
 * sends and the commits (ids never span partitions, so per-id order holds). A batch that fails
 * (the store is down) is neither answered nor committed, so it is processed again after recovery.
 * A consumer kafkajs gave up on is started again (consumer-restarts.ts).
 */
export async function runCommandConsumer(deps: CommandConsumerDeps): Promise<CommandConsumer> {
  const roundTrips = sharedRoundTrips(deps);
  const commits = offsetCommits(COMMIT_INTERVAL_MS, (error, offsets) => {
    deps.logger.warn(
      {
        err: error,
        offsets: offsets.map(({ topic, partition, offset }) => ({ topic, partition, offset })),
      },
      'commit of answered batches failed',
    );
  });
  const lanes = partitionLanes(
    deps.consumer,
    (work, self) =>
      withCommandSpans(work, (spans) =>
        answerBatch(work, { ...deps, roundTrips, commits, lanes: self }, spans),
      ),
    deps.logger,
  );
  deps.consumer.on(deps.consumer.events.REBALANCING, () => {
    void commits.flush();
  });
  deps.consumer.on(deps.consumer.events.GROUP_JOIN, ({ payload }) => {
    lanes.assigned(payload.memberAssignment);
  });
  await deps.consumer.subscribe({ topic: deps.topics.create, fromBeginning: true });
  const run = () =>
    deps.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: PARTITIONS_AT_ONCE,
      eachBatch: (payload) => lanes.accept(payload),
    });
  const restarts = restartAfterCrashes(deps.consumer, run, deps.logger);
  await run();
  return {
    async stop() {
      await Promise.all([lanes.stop(), restarts.stop()]);
      await commits.close();
    },
  };
}

/**
 * Runs `attempt` until it succeeds, RETRY_MS apart, while `keepTrying`; `retrying` hears of each
 * failure first.
 */
async function untilItSucceeds<T>(
  attempt: () => Promise<T>,
  keepTrying: KeepTrying,
  retrying: (error: unknown) => void,
): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!keepTrying()) throw error;
      retrying(error);
      await sleep(RETRY_MS);
    }
  }
}

/**
 * The store's outcome for a batch's plants, waiting for the store while it is unreachable: the
 * batch is neither answered nor committed meanwhile, and is answered once the store is back.
 */
async function createdOnceStoreAnswers(
  work: LaneWork,
  plants: NewPlant[],
  deps: CommandConsumerDeps,
  roundTrips: RoundTrips,
  keepTrying: KeepTrying,
): Promise<Reply[]> {
  return untilItSucceeds(
    () => roundTrips.create(plants),
    keepTrying,
    (error) => {
      deps.metrics.storeRetries.inc();
      deps.logger.warn(
        { err: error, partition: work.partition, commands: plants.length },
        'store unavailable: the batch waits, unanswered and uncommitted',
      );
    },
  );
}

interface RoundTrips {
  create(plants: NewPlant[]): Promise<Reply[]>;
}

/** What answering a batch takes: the consumer's dependencies and the round trips batches share. */
interface Answering extends CommandConsumerDeps {
  roundTrips: RoundTrips;
  commits: OffsetCommits;
  lanes: PartitionLanes;
}

/**
 * The batches in hand share one insert; each then reads back its own duplicates, outside the
 * shared round trip, so that the next insert (other partitions' fresh creates) never waits for
 * another batch's reads.
 */
function sharedRoundTrips(deps: CommandConsumerDeps): RoundTrips {
  const insertNew = coalescer<readonly NewPlant[], Set<bigint>>(
    async (batches) => {
      const stored = await deps.store.insertNew(batches.flat());
      return batches.map(
        (plants) => new Set(plants.flatMap(({ id }) => (stored.has(id) ? [id] : []))),
      );
    },
    { concurrency: INSERTS_AT_ONCE, gather: true },
  );
  const store: PlantStore = {
    insertNew,
    findByIdAndName: (keys) => deps.store.findByIdAndName(keys),
  };
  return { create: (plants) => createPlants(plants, store) };
}

async function answerBatch(work: LaneWork, deps: Answering, spans: CommandSpans): Promise<void> {
  const { roundTrips, lanes } = deps;
  const { messages, payload } = work;
  const last = messages.at(-1);
  if (last === undefined) return;
  const keepTrying: KeepTrying = () => lanes.running() && payload.isRunning();
  if (!keepTrying()) throw new Error('the consumer stopped before the commands were answered');
  const answered = deps.metrics.batchDuration.startTimer();
  // Each command's span starts here, so that it covers the store and the replies too.
  for (const message of messages) spans.of(message);

  const decoded = messages.map((message) => ({
    message,
    checked: decodeNewPlant(message.value),
  }));
  const valid = decoded.flatMap(({ checked }) => (checked.ok ? [checked.plant] : []));
  const outcomes = await createdOnceStoreAnswers(work, valid, deps, roundTrips, keepTrying);

  const outgoing: Outgoing[] = [];
  const undeliverable: Undeliverable[] = [];
  const answer = (command: KafkaMessage, reply: Reply) => {
    const outcome = replyTo(command, reply, spans.of(command), deps.topics);
    if (outcome.kind === 'send') outgoing.push(outcome.outgoing);
    if (outcome.kind === 'undeliverable') undeliverable.push(outcome.undeliverable);
  };
  const counted: string[] = [];
  // Replies leave in the order of their commands, valid or not.
  let nextOutcome = 0;
  for (const { message, checked } of decoded) {
    if (!checked.ok) {
      deps.logger.warn(
        { ...commandLogFields(message, spans), offset: message.offset, error: checked.error },
        'invalid create command sent to the DLQ',
      );
      outgoing.push(invalidCommandCopy(message, deps.topics.dlq, checked.error));
      counted.push(String(checked.error.error));
      answer(message, { status: 400, error: checked.error });
      continue;
    }
    const reply = outcomes[nextOutcome++];
    if (reply === undefined) continue;
    answer(message, reply);
    counted.push(reply.status === 200 ? '200' : String(reply.error.error));
    deps.logger.debug(
      {
        ...commandLogFields(message, spans),
        plantId: checked.plant.id.toString(),
        status: reply.status,
      },
      'create command answered',
    );
  }
  const givenUp = [
    ...undeliverable,
    ...(await sentOnceKafkaTakes(work, outgoing, undeliverable, deps, keepTrying)),
  ];

  // Counted once sent: a batch that fails is processed, and counted, again.
  observeReplyDelays(outgoing, givenUp, deps.metrics.replyDelay);
  deps.metrics.batchSize.observe(messages.length);
  for (const outcome of counted) deps.metrics.commands.inc({ outcome });
  deps.metrics.deadLetters.inc(decoded.length - valid.length);
  for (const { command, topic, reason, detail } of givenUp) {
    deps.metrics.undeliverableReplies.inc({ reason });
    deps.logger.warn(
      {
        ...commandLogFields(command, spans),
        offset: command.offset,
        replyTopic: topic,
        reason,
        detail,
      },
      'reply given up and the command copied to the DLQ',
    );
  }
  // Not committed if the partition is given away first: its next owner commits it, and this
  // writer's commit could move its offset back.
  deps.commits.answered({
    topic: work.topic,
    partition: work.partition,
    offset: nextOffset(last.offset),
    payload,
    current: () => lanes.current(work),
  });
  answered();
  deps.logger.debug({ partition: work.partition, commands: messages.length }, 'batch answered');
}

/**
 * Sends the batch's replies and DLQ copies, gives up the replies Kafka refuses one by one, and
 * copies their commands (and those refused before sending) to the DLQ. A failure of anything
 * else, the DLQ included, means Kafka cannot take the batch: it waits, unanswered and
 * uncommitted, and is sent again, as while the store is down. Returns the replies refused by Kafka.
 */
async function sentOnceKafkaTakes(
  work: LaneWork,
  outgoing: readonly Outgoing[],
  refusedBeforeSending: readonly Undeliverable[],
  deps: CommandConsumerDeps,
  keepTrying: KeepTrying,
): Promise<Undeliverable[]> {
  return untilItSucceeds(
    async () => {
      const refused = (await deps.sender.send(outgoing)).map(
        ({ outgoing: { topic, command }, error }): Undeliverable => ({
          command,
          topic,
          reason: 'send_failed',
          detail: error.message,
        }),
      );
      const copies = [...refusedBeforeSending, ...refused].map((undeliverable) =>
        undeliverableReplyCopy(undeliverable, deps.topics.dlq),
      );
      await deps.sender.send(copies);
      return refused;
    },
    keepTrying,
    (error) => {
      deps.metrics.sendRetries.inc();
      deps.logger.warn(
        { err: error, partition: work.partition, messages: outgoing.length },
        'Kafka did not take the replies: the batch waits, unanswered and uncommitted',
      );
    },
  );
}

/** How long each command that got its reply waited for it, from its Kafka timestamp. */
function observeReplyDelays(
  outgoing: readonly Outgoing[],
  givenUp: readonly Undeliverable[],
  replyDelay: WriterMetrics['replyDelay'],
): void {
  const now = Date.now();
  const notAnswered = new Set(givenUp.map(({ command }) => command));
  for (const { command } of outgoing) {
    const producedAt = Number(command?.timestamp);
    // A timestamp of -1 means none (Kafka's NO_TIMESTAMP).
    const stamped = Number.isFinite(producedAt) && producedAt >= 0;
    if (command === undefined || notAnswered.has(command) || !stamped) continue;
    // A producer's clock ahead of this writer's reads as no wait at all.
    replyDelay.observe(Math.max(0, now - producedAt) / 1000);
  }
}

function commandLogFields(command: KafkaMessage, spans: CommandSpans) {
  return {
    reqId: headerText(command.headers, HEADERS.requestId),
    ...traceLogFields(spans.of(command)),
    correlationId: printable(firstHeader(command.headers?.[HEADERS.correlationId])),
  };
}

const LOGGED_ID_BYTES = 64;

/**
 * Correlation ids are opaque bytes (Spring's are 16 random ones), and a producer may send 1 MiB
 * of them: logged as text only when printable, at most 64 bytes of them.
 */
function printable(value: Buffer | string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const bytes = Buffer.from(value);
  const head = bytes.subarray(0, LOGGED_ID_BYTES);
  const text = head.toString('latin1');
  const shown = /^[\x20-\x7e]*$/.test(text) ? text : `base64:${head.toString('base64')}`;
  return bytes.length > LOGGED_ID_BYTES ? `${shown}… (${String(bytes.length)} bytes)` : shown;
}
