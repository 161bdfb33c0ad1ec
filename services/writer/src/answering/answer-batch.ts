import type { KafkaMessage } from 'kafkajs';
import type { Topics } from '#shared/contracts/kafka.ts';
import { decodeNewPlant } from '#shared/contracts/new-plant.ts';
import type { NewPlant } from '#shared/contracts/plant.ts';
import type { KnownOutcomes } from '../store/create-plants.ts';
import type { Reply } from '#shared/contracts/reply.ts';
import type { Logger } from '#shared/logger.ts';
import { traceHeaders } from '#shared/tracing/spans.ts';
import type { WriterMetrics } from '../observability/metrics.ts';
import type { OutgoingSender } from './outgoing.ts';
import {
  messagesOf,
  planAnswers,
  settleAnswers,
  type Answer,
  type DecodedCommand,
} from './answer-plan.ts';
import { withCommandSpans } from '../observability/command-spans.ts';
import { observeAnswers, type AnswerMetrics } from './observe-answers.ts';
import { untilItSucceeds } from './until-it-succeeds.ts';

/** Commands of one partition, in order, to answer together. */
export interface CommandBatch {
  topic: string;
  partition: number;
  messages: readonly KafkaMessage[];
  /** False once the writer stops: a batch that waits for the store or Kafka gives up. */
  keepTrying: () => boolean;
}

export interface Answering {
  /** The store's outcome for the plants, in their order; `inserted` as in create-plants.ts. */
  createPlants(
    plants: readonly NewPlant[],
    inserted: (known: KnownOutcomes) => void,
  ): Promise<Reply[]>;
  sender: OutgoingSender;
  topics: Pick<Topics, 'create' | 'dlq'>;
  logger: Logger;
  metrics: AnswerMetrics &
    Pick<WriterMetrics, 'batchSize' | 'batchDuration' | 'storeRetries' | 'sendRetries'>;
}

/**
 * Answers a batch: decodes its commands, stores the valid ones, plans what each gets back
 * (answer-plan.ts) and sends every reply and DLQ copy (acks=all), then gives up the replies
 * Kafka refused and sends their copies. Commands whose outcome is known once the plants are
 * inserted are answered then, without waiting for those whose plant must be read back (a store
 * round trip more). While the store or Kafka cannot take the batch it waits, unanswered, and tries
 * again; it rejects only once `keepTrying` says to stop, and then nothing of it may be committed.
 */
export function answerBatch(batch: CommandBatch, deps: Answering): Promise<void> {
  const { logger, metrics } = deps;
  return withCommandSpans(batch, async (spans) => {
    if (!batch.keepTrying())
      throw new Error('the consumer stopped before the commands were answered');
    const answered = metrics.batchDuration.startTimer();
    const decoded = batch.messages.map((command) => ({
      command,
      checked: decodeNewPlant(command.value),
      // Each command's span starts here, so that it covers the store and the replies too.
      trace: traceHeaders(spans.of(command)),
    }));
    const valid = decoded.filter(({ checked }) => checked.ok);
    const plants = valid.flatMap(({ checked }) => (checked.ok ? [checked.plant] : []));
    const repliesOf = (outcomes: KnownOutcomes) =>
      new Map(
        valid.flatMap((command, index) => {
          const reply = outcomes[index];
          return reply === undefined ? [] : [[command, reply] as const];
        }),
      );
    const answer = async (
      commands: readonly DecodedCommand[],
      replies: ReadonlyMap<DecodedCommand, Reply>,
    ) => {
      if (commands.length === 0) return;
      const stored = commands.flatMap((command) => replies.get(command) ?? []);
      const planned = planAnswers(commands, stored, deps.topics);
      const answers = await untilItSucceeds(
        () => sent(planned, deps),
        batch.keepTrying,
        (error) => {
          metrics.sendRetries.inc();
          logger.warn(
            { err: error, partition: batch.partition, messages: planned.length },
            'Kafka did not take the replies: the batch waits, unanswered and uncommitted',
          );
        },
      );
      observeAnswers(answers, spans, metrics, logger);
    };
    /** The commands answered before the reads, and their send. */
    const early: { commands?: DecodedCommand[]; sent?: Promise<void> } = {};
    const stored = await untilItSucceeds(
      () =>
        deps.createPlants(plants, (known) => {
          // Once: the commands known early to an attempt that failed were answered then.
          if (early.commands !== undefined) return;
          const replies = repliesOf(known);
          early.commands = decoded.filter((command) => !command.checked.ok || replies.has(command));
          early.sent = answer(early.commands, replies);
          // Awaited below once the reads are done; a failure meanwhile is not unhandled.
          early.sent.catch(() => undefined);
        }),
      batch.keepTrying,
      (error) => {
        metrics.storeRetries.inc();
        logger.warn(
          { err: error, partition: batch.partition, commands: plants.length },
          'store unavailable: the batch waits, unanswered and uncommitted',
        );
      },
    );
    const answeredEarly = new Set(early.commands);
    await Promise.all([
      early.sent,
      answer(
        decoded.filter((command) => !answeredEarly.has(command)),
        repliesOf(stored),
      ),
    ]);
    metrics.batchSize.observe(batch.messages.length);
    answered();
    logger.debug({ partition: batch.partition, commands: batch.messages.length }, 'batch answered');
  });
}

/**
 * The answers once sent: replies Kafka refused one by one are given up and their commands
 * copied to the DLQ. A failure of anything else, a copy included, rejects: the batch is sent
 * again, as while the store is down.
 */
async function sent(planned: readonly Answer[], deps: Answering): Promise<Answer[]> {
  const refused = await deps.sender.send(messagesOf(planned));
  const { answers, copies } = settleAnswers(planned, refused, deps.topics.dlq);
  await deps.sender.send(copies);
  return answers;
}
