import { SpanKind, type Span } from '@opentelemetry/api';
import type { Batch, KafkaMessage } from 'kafkajs';
import {
  messagingAttributes,
  recordFailure,
  traceContextOf,
  tracer,
} from '#shared/tracing/spans.ts';

export interface CommandSpans {
  /** The span of a command's processing, started on first use. */
  of(message: KafkaMessage): Span;
}

/**
 * Answers a batch with one consumer span per command, each the child of the producer span its
 * `traceparent` names (so one create is one trace across both services), or the root of a trace
 * of its own when the header is absent or unreadable. The spans end once `answer` settles, failed
 * when it throws; a batch returned early, unanswered, starts none.
 */
export async function withCommandSpans(
  batch: Pick<Batch, 'topic' | 'partition'>,
  answer: (spans: CommandSpans) => Promise<void>,
): Promise<void> {
  const started = new Map<KafkaMessage, Span>();
  const spans: CommandSpans = {
    of(message) {
      let span = started.get(message);
      if (span === undefined) {
        span = tracer.startSpan(
          `process ${batch.topic}`,
          {
            kind: SpanKind.CONSUMER,
            attributes: messagingAttributes('process', batch.topic, {
              partition: batch.partition,
              offset: message.offset,
              ...(message.key === null ? {} : { key: message.key.toString() }),
            }),
          },
          traceContextOf(message.headers),
        );
        started.set(message, span);
      }
      return span;
    },
  };
  try {
    await answer(spans);
  } catch (error) {
    for (const span of started.values()) recordFailure(span, error);
    throw error;
  } finally {
    for (const span of started.values()) span.end();
  }
}
