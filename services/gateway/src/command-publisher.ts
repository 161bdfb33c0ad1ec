import type { Context } from '@opentelemetry/api';
import { Partitioners, type Kafka, type Message } from 'kafkajs';
import type { Histogram } from 'prom-client';
import { HEADERS, type Topics } from '../../../shared/contracts/kafka.ts';
import { stringifyJson } from '../../../shared/contracts/json.ts';
import type { NewPlant } from '../../../shared/contracts/plant.ts';
import { coalescer } from '../../../shared/coalescer.ts';
import { idempotentProducer } from '../../../shared/idempotent-producer.ts';
import type { Logger } from '../../../shared/logger.ts';
import { timed } from '../../../shared/metrics.ts';
import { inProducerSpan } from '../../../shared/tracing.ts';

export interface CreateCommand {
  plant: NewPlant;
  correlationId: string;
  requestId: string;
  deadline: number;
  /** The request's trace: the send is a span of it, named by the command's `traceparent`. */
  trace: Context;
}

interface Pending {
  message: Message;
  deadline: number;
}

export interface CommandPublisher {
  publish(command: CreateCommand): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * Produces create commands keyed by plant id (murmur2, like the Java client, so every command
 * for one id lands on one partition). Retries are short: a broker that cannot take the command
 * must turn into a 503 well within the HTTP deadline, not into a hang. Under load, commands
 * that queue behind a send in flight go out together in the next one, and so do the commands of
 * the requests one turn of the event loop read. Idempotent with acks=all: a retry of a send the
 * broker had written is not written twice.
 */
export async function commandPublisher(
  kafka: Kafka,
  topics: Pick<Topics, 'create' | 'replies'>,
  produceDuration: Histogram<'outcome'>,
  logger: Pick<Logger, 'warn'>,
): Promise<CommandPublisher> {
  const producer = await idempotentProducer(
    kafka,
    {
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1_000 },
    },
    (error) => {
      logger.warn({ err: error }, 'disconnecting a producer replaced after a failed send failed');
    },
  );
  // A command whose request was answered 504 while it waited behind a stuck send is dropped:
  // nobody waits for it, and it would reach the writers long after.
  const send = coalescer<Pending, boolean>(
    async (pending) => {
      const now = Date.now();
      const messages = pending.flatMap(({ message, deadline }) =>
        deadline > now ? [message] : [],
      );
      if (messages.length > 0) {
        await timed(produceDuration, {}, () =>
          producer.sendBatch({
            timeout: 2_000,
            topicMessages: [{ topic: topics.create, messages }],
          }),
        );
      }
      return pending.map(({ deadline }) => deadline > now);
    },
    { gather: true },
  );
  return {
    publish: ({ plant, correlationId, requestId, deadline, trace }) =>
      inProducerSpan(trace, topics.create, plant.id.toString(), async (traceHeaders) => {
        const sent = await send({
          deadline,
          message: {
            key: plant.id.toString(),
            value: stringifyJson(plant),
            headers: {
              [HEADERS.correlationId]: correlationId,
              [HEADERS.replyTopic]: topics.replies,
              [HEADERS.contentType]: 'application/json',
              [HEADERS.requestId]: requestId,
              [HEADERS.deadline]: String(deadline),
              ...traceHeaders,
            },
          },
        });
        if (!sent) throw new Error('the deadline passed before the command could be sent');
      }),
    disconnect: () => producer.disconnect(),
  };
}
