import type { Logger } from '#shared/logger.ts';
import type { WriterMetrics } from '../observability/metrics.ts';
import type { Answer } from './answer-plan.ts';
import { commandLogFields } from './command-log.ts';
import type { CommandSpans } from '../observability/command-spans.ts';

export type AnswerMetrics = Pick<
  WriterMetrics,
  'commands' | 'deadLetters' | 'undeliverableReplies' | 'replyDelay'
>;

/**
 * Counts and logs what each command of a batch got, once its answers were sent: a batch that
 * fails is processed, and counted, again.
 */
export function observeAnswers(
  answers: readonly Answer[],
  spans: CommandSpans,
  metrics: AnswerMetrics,
  logger: Logger,
): void {
  const now = Date.now();
  // Every command of every batch: the fields of a line nobody logs are not worked out.
  const logsAnswered = logger.isLevelEnabled('debug');
  for (const { command, checked, reply, delivery } of answers) {
    const fields = () => commandLogFields(command, spans.of(command));
    metrics.commands.inc({ outcome: reply.status === 200 ? '200' : String(reply.error.error) });
    if (checked.ok) {
      if (logsAnswered) {
        logger.debug(
          { ...fields(), plantId: checked.plant.id.toString(), status: reply.status },
          'create command answered',
        );
      }
    } else {
      metrics.deadLetters.inc();
      logger.warn(
        { ...fields(), offset: command.offset, error: checked.error },
        'invalid create command sent to the DLQ',
      );
    }
    if (delivery.kind === 'givenUp') {
      const { topic, reason, detail } = delivery;
      metrics.undeliverableReplies.inc({ reason });
      logger.warn(
        { ...fields(), offset: command.offset, replyTopic: topic, reason, detail },
        'reply given up and the command copied to the DLQ',
      );
    }
    const producedAt = Number(command.timestamp);
    // A timestamp of -1 means none (Kafka's NO_TIMESTAMP).
    if (delivery.kind === 'reply' && Number.isFinite(producedAt) && producedAt >= 0) {
      // A producer's clock ahead of this writer's reads as no wait at all.
      metrics.replyDelay.observe(Math.max(0, now - producedAt) / 1000);
    }
  }
}
