import type { Span } from '@opentelemetry/api';
import type { IHeaders, KafkaMessage } from 'kafkajs';
import type { ErrorBody } from '../../../shared/contracts/errors.ts';
import { HEADERS, type Topics } from '../../../shared/contracts/kafka.ts';
import { encodeReply, type Reply } from '../../../shared/contracts/reply.ts';
import { traceHeaders } from '../../../shared/tracing.ts';
import type { Outgoing } from './outgoing-sender.ts';
import { replyRoute, type UndeliverableReason } from './reply-route.ts';
import { firstHeader } from '../../../shared/kafka-messages.ts';

/** A reply given up: refused before sending, or by Kafka after its bounded retry. */
export interface Undeliverable {
  command: KafkaMessage;
  topic: string;
  reason: UndeliverableReason;
  detail: string;
}

export type ReplyOutcome =
  | { kind: 'none' }
  | { kind: 'send'; outgoing: Outgoing }
  | { kind: 'undeliverable'; undeliverable: Undeliverable };

/**
 * The reply to a command, where it asked for one. Its `traceparent` names the command's span, so
 * the gateway records its arrival in the same trace.
 */
export function replyTo(
  command: KafkaMessage,
  reply: Reply,
  span: Span,
  topics: Pick<Topics, 'create' | 'dlq'>,
): ReplyOutcome {
  const route = replyRoute(command.headers, topics);
  if (route.kind === 'none') return route;
  if (route.kind === 'refused') {
    const { topic, reason, detail } = route;
    return { kind: 'undeliverable', undeliverable: { command, topic, reason, detail } };
  }
  const correlationId = firstHeader(command.headers?.[HEADERS.correlationId]);
  const headers: IHeaders = {
    [HEADERS.nestIsDisposed]: '1',
    [HEADERS.contentType]: 'application/json',
    ...traceHeaders(span),
  };
  if (correlationId !== undefined) headers[HEADERS.correlationId] = correlationId;
  return {
    kind: 'send',
    outgoing: {
      topic: route.topic,
      command,
      message: {
        ...(route.partition === undefined ? {} : { partition: route.partition }),
        key: correlationId ?? null,
        value: encodeReply(reply),
        headers,
      },
    },
  };
}

/** An invalid command's copy on the dead-letter topic: its bytes as received, and why. */
export function invalidCommandCopy(command: KafkaMessage, dlq: string, error: ErrorBody): Outgoing {
  return copy(command, dlq, {
    [HEADERS.errorCode]: String(error.error),
    [HEADERS.errorMessage]: error.message,
  });
}

/** The copy of a command whose reply could not be delivered; the plant was stored or refused. */
export function undeliverableReplyCopy(
  { command, reason, detail }: Undeliverable,
  dlq: string,
): Outgoing {
  return copy(command, dlq, { [HEADERS.replyError]: `${reason}: ${detail}` });
}

/**
 * The command's key, value and headers plus `why`; where the DLQ refuses that as too large, its
 * key, `why` and the command's offset, marked `error-copy-truncated`.
 */
function copy(command: KafkaMessage, dlq: string, why: IHeaders): Outgoing {
  return {
    topic: dlq,
    message: { key: command.key, value: command.value, headers: { ...command.headers, ...why } },
    ifTooLarge: {
      key: command.key,
      value: null,
      headers: { ...why, [HEADERS.copyTruncated]: `command offset ${command.offset}` },
    },
  };
}
