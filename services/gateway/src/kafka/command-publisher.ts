import type { Context } from '@opentelemetry/api';
import { Partitioners, type Kafka, type Message } from 'kafkajs';
import type { Histogram } from 'prom-client';
import { HEADERS, replyPartitionHeader, type Topics } from '#shared/contracts/kafka.ts';
import { stringifyJson } from '#shared/contracts/json.ts';
import type { NewPlant } from '#shared/contracts/plant.ts';
import { arrivalLinger } from '#shared/batching/arrival-linger.ts';
import { coalescer } from '#shared/batching/coalescer.ts';
import { idempotentProducer } from '#shared/kafka/idempotent-producer.ts';
import type { Logger } from '#shared/logger.ts';
import { timed } from '#shared/metrics.ts';
import { inProducerSpan } from '#shared/tracing/spans.ts';

/**
 * @internal Exported because the use case's unit test records the commands it publishes.
 */
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
  /** How many sends had failed when the command was queued. */
  failuresBefore: number;
}

/** What became of a command handed to a send. */
type Sent = 'sent' | 'too late' | { failedBehind: unknown };

/**
 * kafkajs's attempts for one send: about 4.5 s of them (0.1, 0.2, 0.4, 0.8, then 1 s apart), each
 * after asking for the partitions' leaders again, and under the default reply deadline of 5 s. A
 * broker that dies leads its partitions until the controller fences it (its session timeout after
 * its last heartbeat): with fewer retries the gateway answered 503 to creates that the next leader
 * took a moment later.
 */
const SEND_RETRY = { retries: 7, initialRetryTime: 100, maxRetryTime: 1_000 };

/**
 * How a send waits for more commands (shared/batching/arrival-linger.ts): for three more, as long as they take to
 * arrive at the rate of the last ~100 ms, when that is within the configured longest wait. With
 * the default 8 ms, a send waits from about 375 creates/s up (7.5 ms at 400/s, 4.3 ms at 700/s,
 * 3 ms at 1,000/s), and never at a lower rate or when idle.
 */
const LINGER = { wanted: 3, windowMs: 100 };

export interface CommandPublisherOptions {
  topics: Pick<Topics, 'create' | 'replies'> & { replyPartition: number };
  /** The longest a send waits for more commands; 0: it never waits. */
  lingerMaxMs: number;
  produceDuration: Histogram<'outcome'>;
  logger: Pick<Logger, 'warn'>;
}

export interface CommandPublisher {
  publish(command: CreateCommand): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * Produces create commands keyed by plant id (murmur2, like the Java client, so every command
 * for one id lands on one partition). A send rides out a leader's death (SEND_RETRY) and still
 * fails well within the HTTP deadline when Kafka cannot take it: a 503, not a hang. Under load,
 * commands that queue behind a send in flight go out together in the next one, and so do the
 * commands of the requests one turn of the event loop read; at a steady rate high enough, a send
 * lingers a few ms for more (LINGER), so that every hop after it, the writer's fetch, insert and
 * reply and this gateway's fetch of the replies, carries several creates instead of one. Those
 * that waited behind a send that failed fail with it, unsent, instead of waiting as long again.
 * Idempotent with acks=all: a retry of a send the broker had written is not written twice.
 */
export async function commandPublisher(
  kafka: Kafka,
  { topics, lingerMaxMs, produceDuration, logger }: CommandPublisherOptions,
): Promise<CommandPublisher> {
  const producer = await idempotentProducer(
    kafka,
    {
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: SEND_RETRY,
    },
    (error) => {
      logger.warn({ err: error }, 'disconnecting a producer replaced after a failed send failed');
    },
  );
  const replyPartition = replyPartitionHeader(topics.replyPartition);
  let failures = 0;
  let lastFailure: unknown;
  // A command whose request was answered 504 while it waited behind a stuck send is dropped:
  // nobody waits for it, and it would reach the writers long after.
  const send = coalescer<Pending, Sent>(
    async (pending) => {
      const now = Date.now();
      const failed = lastFailure;
      const outcomes = pending.map(({ deadline, failuresBefore }): Sent => {
        if (failuresBefore < failures) return { failedBehind: failed };
        return deadline > now ? 'sent' : 'too late';
      });
      const messages = pending.flatMap(({ message }, index) =>
        outcomes[index] === 'sent' ? [message] : [],
      );
      if (messages.length > 0) {
        try {
          await timed(produceDuration, {}, () =>
            producer.sendBatch({
              timeout: 2_000,
              topicMessages: [{ topic: topics.create, messages }],
            }),
          );
        } catch (error) {
          failures++;
          lastFailure = error;
          throw error;
        }
      }
      return outcomes;
    },
    { gather: lingerMaxMs > 0 ? arrivalLinger({ ...LINGER, maxMs: lingerMaxMs }) : true },
  );
  return {
    publish: ({ plant, correlationId, requestId, deadline, trace }) =>
      inProducerSpan(trace, topics.create, plant.id.toString(), async (traceHeaders) => {
        const sent = await send({
          deadline,
          failuresBefore: failures,
          message: {
            key: plant.id.toString(),
            value: stringifyJson(plant),
            headers: {
              [HEADERS.correlationId]: correlationId,
              [HEADERS.replyTopic]: topics.replies,
              [HEADERS.replyPartition]: replyPartition,
              [HEADERS.contentType]: 'application/json',
              [HEADERS.requestId]: requestId,
              [HEADERS.deadline]: String(deadline),
              ...traceHeaders,
            },
          },
        });
        if (sent === 'too late')
          throw new Error('the deadline passed before the command could be sent');
        if (sent !== 'sent') throw sent.failedBehind;
      }),
    disconnect: () => producer.disconnect(),
  };
}
