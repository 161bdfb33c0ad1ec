import type { IHeaders, KafkaMessage } from 'kafkajs';
import type { ErrorBody } from '#shared/contracts/errors.ts';
import { HEADERS } from '#shared/contracts/kafka.ts';
import { encodeReply, type Reply } from '#shared/contracts/reply.ts';
import { firstHeader } from '#shared/kafka/messages.ts';
import type { Outgoing } from './outgoing.ts';
import type { GivenUpReason } from './reply-route.ts';

/**
 * The reply to a command, keyed and headed by its correlation id. `trace` names the command's
 * span (`traceparent`), so the gateway records the reply's arrival in the same trace.
 */
export function replyMessage(
  command: KafkaMessage,
  reply: Reply,
  to: { topic: string; partition: number | undefined },
  trace: IHeaders,
): Outgoing {
  const correlationId = firstHeader(command.headers?.[HEADERS.correlationId]);
  const headers: IHeaders = {
    [HEADERS.nestIsDisposed]: '1',
    [HEADERS.contentType]: 'application/json',
    ...trace,
  };
  if (correlationId !== undefined) headers[HEADERS.correlationId] = correlationId;
  const message = { key: correlationId ?? null, value: encodeReply(reply), headers };
  return {
    kind: 'reply',
    topic: to.topic,
    message: to.partition === undefined ? message : { ...message, partition: to.partition },
  };
}

/** An invalid command's copy on the dead-letter topic: its bytes as received, and why. */
export function invalidCommandCopy(command: KafkaMessage, dlq: string, error: ErrorBody): Outgoing {
  return copy(command, dlq, {
    [HEADERS.errorCode]: String(error.error),
    [HEADERS.errorMessage]: error.message,
  });
}

/** The copy of a command whose reply was given up; the plant was stored or refused. */
export function givenUpReplyCopy(
  command: KafkaMessage,
  dlq: string,
  why: { reason: GivenUpReason; detail: string },
): Outgoing {
  return copy(command, dlq, { [HEADERS.replyError]: `${why.reason}: ${why.detail}` });
}

/**
 * The command's key, value and headers plus `why`; where the DLQ refuses that as too large, its
 * key, `why` and the command's offset, marked `error-copy-truncated`.
 */
function copy(command: KafkaMessage, dlq: string, why: IHeaders): Outgoing {
  return {
    kind: 'copy',
    topic: dlq,
    message: { key: command.key, value: command.value, headers: { ...command.headers, ...why } },
    ifTooLarge: {
      key: command.key,
      value: null,
      headers: { ...why, [HEADERS.copyTruncated]: `command offset ${command.offset}` },
    },
  };
}
