import { setTimeout as sleep } from 'node:timers/promises';
import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { coalescer } from '../../../shared/coalescer.ts';
import { HEADERS, type Topics } from '../../../shared/contracts/kafka.ts';
import { decodeNewPlant } from '../../../shared/contracts/new-plant.ts';
import type { NewPlant } from '../../../shared/contracts/plant.ts';
import type { Reply } from '../../../shared/contracts/reply.ts';
import type { Logger } from '../../../shared/logger.ts';
import { traceLogFields } from '../../../shared/tracing.ts';
import { withCommandSpans, type CommandSpans } from './command-spans.ts';
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
import { firstHeader, headerText } from './reply-route.ts';

export interface CommandConsumerDeps {
  consumer: Consumer;
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
  >;
}

/** How many partitions' batches one writer answers at once, sharing its round trips. */
const PARTITIONS_AT_ONCE = 16;
const RETRY_MS = 500;

/**
 * Consumes create commands a batch per partition: one insert, an indexed read of each id that
 * was stored before, one send of every reply and DLQ copy (acks=all), and only then one commit.
 * The batches of several partitions in hand at once share the insert, the send and the commit
 * (ids never span partitions, so per-id order holds). A batch that fails (the store is down) is neither answered nor committed, so it is
 * processed again after recovery.
 */
export async function runCommandConsumer(deps: CommandConsumerDeps): Promise<void> {
  const roundTrips = sharedRoundTrips(deps);
  await deps.consumer.subscribe({ topic: deps.topics.create, fromBeginning: true });
  await deps.consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    partitionsConsumedConcurrently: PARTITIONS_AT_ONCE,
    eachBatch: (payload) =>
      withCommandSpans(payload.batch, (spans) => answerBatch(payload, deps, roundTrips, spans)),
  });
}

/**
 * The store's outcome for a batch's plants, waiting for the store while it is unreachable: the
 * batch is neither answered nor committed meanwhile, and is answered once the store is back.
 */
async function createdOnceStoreAnswers(
  payload: EachBatchPayload,
  plants: NewPlant[],
  deps: CommandConsumerDeps,
  roundTrips: RoundTrips,
): Promise<Reply[]> {
  for (;;) {
    try {
      return await roundTrips.create(plants);
    } catch (error) {
      if (!payload.isRunning() || payload.isStale()) throw error;
      deps.metrics.storeRetries.inc();
      deps.logger.warn(
        { err: error, partition: payload.batch.partition, commands: plants.length },
        'store unavailable: the batch waits, unanswered and uncommitted',
      );
      await sleep(RETRY_MS);
    }
  }
}

/** The next offset of a partition, committed through the payload of the batch it ends. */
interface Done {
  payload: EachBatchPayload;
  offset: string;
}

interface RoundTrips {
  create(plants: NewPlant[]): Promise<Reply[]>;
  commit(done: Done): Promise<void>;
}

/**
 * The batches in hand share one insert; each then reads back its own duplicates, outside the
 * shared round trip, so that the next insert (other partitions' fresh creates) never waits for
 * another batch's reads.
 */
function sharedRoundTrips(deps: CommandConsumerDeps): RoundTrips {
  const insertNew = coalescer<readonly NewPlant[], Set<bigint>>(async (batches) => {
    const stored = await deps.store.insertNew(batches.flat());
    return batches.map(
      (plants) => new Set(plants.flatMap(({ id }) => (stored.has(id) ? [id] : []))),
    );
  });
  const store: PlantStore = { insertNew, findByIds: (ids) => deps.store.findByIds(ids) };
  return {
    create: (plants) => createPlants(plants, store),
    // Not consumer.commitOffsets(): once the consumer is stopping it drops commits silently, and
    // a writer stopped with SIGTERM must still commit the batch it just answered.
    commit: coalescer<Done, undefined>(async (done) => {
      const [first] = done;
      if (first === undefined) return [];
      const byTopic = groupByTopic(
        done.map(({ payload: { batch }, offset }) => [
          batch.topic,
          { partition: batch.partition, offset },
        ]),
      );
      await first.payload.commitOffsetsIfNecessary({
        topics: byTopic.map(([topic, partitions]) => ({ topic, partitions })),
      });
      return done.map(() => undefined);
    }),
  };
}

async function answerBatch(
  payload: EachBatchPayload,
  deps: CommandConsumerDeps,
  roundTrips: RoundTrips,
  spans: CommandSpans,
): Promise<void> {
  const { batch } = payload;
  const last = batch.messages.at(-1);
  if (last === undefined || !payload.isRunning() || payload.isStale()) return;
  const answered = deps.metrics.batchDuration.startTimer();
  // Each command's span starts here, so that it covers the store and the replies too.
  for (const message of batch.messages) spans.of(message);

  const decoded = batch.messages.map((message) => ({
    message,
    checked: decodeNewPlant(message.value),
  }));
  const valid = decoded.flatMap(({ checked }) => (checked.ok ? [checked.plant] : []));
  const outcomes = await createdOnceStoreAnswers(payload, valid, deps, roundTrips);

  const outgoing: Outgoing[] = [];
  const undeliverable: Undeliverable[] = [];
  const answer = (command: KafkaMessage, reply: Reply) => {
    const outcome = replyTo(command, reply, spans.of(command), deps.topics);
    if (outcome.kind === 'send') outgoing.push(outcome.outgoing);
    if (outcome.kind === 'undeliverable') undeliverable.push(outcome.undeliverable);
  };
  // Counted once sent: a batch that fails is processed, and counted, again.
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
    ...(await sentOnceKafkaTakes(payload, outgoing, undeliverable, deps)),
  ];

  payload.resolveOffset(last.offset);
  await roundTrips.commit({ payload, offset: (BigInt(last.offset) + 1n).toString() });
  answered();
  deps.metrics.batchSize.observe(batch.messages.length);
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
  deps.logger.debug(
    { partition: batch.partition, commands: batch.messages.length },
    'batch answered',
  );
}

/**
 * Sends the batch's replies and DLQ copies, gives up the replies Kafka refuses one by one, and
 * copies their commands (and those refused before sending) to the DLQ. A failure of anything
 * else, the DLQ included, means Kafka cannot take the batch: it waits, unanswered and
 * uncommitted, and is sent again, as while the store is down. Returns the replies refused by Kafka.
 */
async function sentOnceKafkaTakes(
  payload: EachBatchPayload,
  outgoing: readonly Outgoing[],
  refusedBeforeSending: readonly Undeliverable[],
  deps: CommandConsumerDeps,
): Promise<Undeliverable[]> {
  for (;;) {
    try {
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
    } catch (error) {
      if (!payload.isRunning() || payload.isStale()) throw error;
      deps.metrics.sendRetries.inc();
      deps.logger.warn(
        { err: error, partition: payload.batch.partition, messages: outgoing.length },
        'Kafka did not take the replies: the batch waits, unanswered and uncommitted',
      );
      await sleep(RETRY_MS);
    }
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

/** Items grouped by topic, topics in the order first seen, items in their order. */
function groupByTopic<Item>(entries: readonly (readonly [string, Item])[]): [string, Item[]][] {
  const byTopic = new Map<string, Item[]>();
  for (const [topic, item] of entries) {
    const items = byTopic.get(topic);
    if (items === undefined) byTopic.set(topic, [item]);
    else items.push(item);
  }
  return [...byTopic];
}
