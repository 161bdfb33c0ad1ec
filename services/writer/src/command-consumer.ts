import { setTimeout as sleep } from 'node:timers/promises';
import type { Span } from '@opentelemetry/api';
import type {
  Consumer,
  EachBatchPayload,
  IHeaders,
  KafkaMessage,
  Message,
  Producer,
} from 'kafkajs';
import { coalescer } from '../../../shared/coalescer.ts';
import type { ErrorBody } from '../../../shared/contracts/errors.ts';
import { HEADERS, readReplyPartition, type Topics } from '../../../shared/contracts/kafka.ts';
import { decodeNewPlant } from '../../../shared/contracts/new-plant.ts';
import type { NewPlant } from '../../../shared/contracts/plant.ts';
import { encodeReply, type Reply } from '../../../shared/contracts/reply.ts';
import type { Logger } from '../../../shared/logger.ts';
import { traceHeaders, traceLogFields } from '../../../shared/tracing.ts';
import { withCommandSpans, type CommandSpans } from './command-spans.ts';
import { createPlants } from './create-plants.ts';
import type { WriterMetrics } from './metrics.ts';
import type { PlantStore } from './plant-store.ts';

export interface CommandConsumerDeps {
  consumer: Consumer;
  producer: Producer;
  store: PlantStore;
  topics: Pick<Topics, 'create' | 'dlq'>;
  logger: Logger;
  metrics: Pick<
    WriterMetrics,
    'batchSize' | 'batchDuration' | 'commands' | 'deadLetters' | 'storeRetries'
  >;
}

/** How many partitions' batches one writer answers at once, sharing its round trips. */
const PARTITIONS_AT_ONCE = 16;
const STORE_RETRY_MS = 500;

/**
 * Consumes create commands a batch per partition: one insert, at most one read, one send of
 * every reply and DLQ copy (acks=all), and only then one commit. The batches of several
 * partitions in hand at once share those round trips (ids never span partitions, so per-id order
 * holds). A batch that fails (the store is down) is neither answered nor committed, so it is
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
      await sleep(STORE_RETRY_MS);
    }
  }
}

interface Outgoing {
  topic: string;
  message: Message;
}

/** The next offset of a partition, committed through the payload of the batch it ends. */
interface Done {
  payload: EachBatchPayload;
  offset: string;
}

interface RoundTrips {
  create(plants: NewPlant[]): Promise<Reply[]>;
  send(outgoing: Outgoing[]): Promise<void>;
  commit(done: Done): Promise<void>;
}

function sharedRoundTrips(deps: CommandConsumerDeps): RoundTrips {
  return {
    create: coalescer<NewPlant[], Reply[]>(async (batches) => {
      const replies = await createPlants(batches.flat(), deps.store);
      let start = 0;
      return batches.map((plants) => replies.slice(start, (start += plants.length)));
    }),
    send: coalescer<Outgoing[], undefined>(async (batches) => {
      const outgoing = batches.flat();
      if (outgoing.length > 0) {
        const byTopic = groupByTopic(outgoing.map(({ topic, message }) => [topic, message]));
        await deps.producer.sendBatch({
          acks: -1,
          topicMessages: byTopic.map(([topic, messages]) => ({ topic, messages })),
        });
      }
      return batches.map(() => undefined);
    }),
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
  const valid = decoded.flatMap(({ message, checked }) =>
    checked.ok ? [{ message, plant: checked.plant }] : [],
  );
  const outcomes = await createdOnceStoreAnswers(
    payload,
    valid.map(({ plant }) => plant),
    deps,
    roundTrips,
  );

  const outgoing: Outgoing[] = [];
  // Counted once sent: a batch that fails is processed, and counted, again.
  const counted: string[] = [];
  valid.forEach(({ message, plant }, index) => {
    const reply = outcomes[index];
    if (reply === undefined) return;
    outgoing.push(...replyTo(message, reply, spans.of(message)));
    counted.push(reply.status === 200 ? '200' : String(reply.error.error));
    deps.logger.debug(
      {
        reqId: headerText(message.headers, HEADERS.requestId),
        ...traceLogFields(spans.of(message)),
        correlationId: headerText(message.headers, HEADERS.correlationId),
        plantId: plant.id.toString(),
        status: reply.status,
      },
      'create command answered',
    );
  });
  for (const { message, checked } of decoded) {
    if (checked.ok) continue;
    deps.logger.warn(
      {
        reqId: headerText(message.headers, HEADERS.requestId),
        ...traceLogFields(spans.of(message)),
        offset: message.offset,
        error: checked.error,
      },
      'invalid create command sent to the DLQ',
    );
    outgoing.push(deadLetter(message, deps.topics.dlq, checked.error));
    counted.push(String(checked.error.error));
    outgoing.push(...replyTo(message, { status: 400, error: checked.error }, spans.of(message)));
  }
  await roundTrips.send(outgoing);

  payload.resolveOffset(last.offset);
  await roundTrips.commit({ payload, offset: (BigInt(last.offset) + 1n).toString() });
  answered();
  deps.metrics.batchSize.observe(batch.messages.length);
  for (const outcome of counted) deps.metrics.commands.inc({ outcome });
  deps.metrics.deadLetters.inc(decoded.length - valid.length);
  deps.logger.debug(
    { partition: batch.partition, commands: batch.messages.length },
    'batch answered',
  );
}

/**
 * Nothing when the command asked for no reply (fire-and-forget). The reply's `traceparent` names
 * the command's span, so the gateway records its arrival in the same trace.
 */
function replyTo(command: KafkaMessage, reply: Reply, span: Span): Outgoing[] {
  const topic = headerText(command.headers, HEADERS.replyTopic);
  if (topic === undefined) return [];
  const correlationId = firstHeader(command.headers?.[HEADERS.correlationId]);
  const partition = readReplyPartition(firstHeader(command.headers?.[HEADERS.replyPartition]));
  const headers: IHeaders = {
    [HEADERS.nestIsDisposed]: '1',
    [HEADERS.contentType]: 'application/json',
    ...traceHeaders(span),
  };
  if (correlationId !== undefined) headers[HEADERS.correlationId] = correlationId;
  return [
    {
      topic,
      message: {
        ...(partition === undefined ? {} : { partition }),
        key: correlationId ?? null,
        value: encodeReply(reply),
        headers,
      },
    },
  ];
}

function deadLetter(command: KafkaMessage, topic: string, error: ErrorBody): Outgoing {
  return {
    topic,
    message: {
      key: command.key,
      value: command.value,
      headers: {
        ...command.headers,
        [HEADERS.errorCode]: String(error.error),
        [HEADERS.errorMessage]: error.message,
      },
    },
  };
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

function firstHeader(value: IHeaders[string]): Buffer | string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  return firstHeader(headers?.[name])?.toString();
}
