import type { KafkaMessage } from 'kafkajs';
import type { Topics } from '../../../../shared/contracts/kafka.ts';
import { decodeNewPlant } from '../../../../shared/contracts/new-plant.ts';
import type { NewPlant } from '../../../../shared/contracts/plant.ts';
import type { Reply } from '../../../../shared/contracts/reply.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { traceHeaders } from '../../../../shared/tracing.ts';
import type { WriterMetrics } from '../health/metrics.ts';
import type { OutgoingSender } from '../sending/outgoing-sender.ts';
import { messagesOf, planAnswers, settleAnswers, type Answer } from './answer-plan.ts';
import { withCommandSpans } from './command-spans.ts';
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
  /** The store's outcome for the plants, in their order (create-plants.ts). */
  createPlants(plants: readonly NewPlant[]): Promise<Reply[]>;
  sender: OutgoingSender;
  topics: Pick<Topics, 'create' | 'dlq'>;
  logger: Logger;
  metrics: AnswerMetrics &
    Pick<WriterMetrics, 'batchSize' | 'batchDuration' | 'storeRetries' | 'sendRetries'>;
}

/**
 * Answers a batch: decodes its commands, stores the valid ones, plans what each gets back
 * (answer-plan.ts) and sends every reply and DLQ copy (acks=all), then gives up the replies
 * Kafka refused and sends their copies. While the store or Kafka cannot take the batch it waits,
 * unanswered, and tries again; it rejects only once `keepTrying` says to stop, and then nothing
 * of it may be committed.
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
    const plants = decoded.flatMap(({ checked }) => (checked.ok ? [checked.plant] : []));
    const stored = await untilItSucceeds(
      () => deps.createPlants(plants),
      batch.keepTrying,
      (error) => {
        metrics.storeRetries.inc();
        logger.warn(
          { err: error, partition: batch.partition, commands: plants.length },
          'store unavailable: the batch waits, unanswered and uncommitted',
        );
      },
    );
    const planned = planAnswers(decoded, stored, deps.topics);
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
