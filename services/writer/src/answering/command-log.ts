import type { Span } from '@opentelemetry/api';
import type { KafkaMessage } from 'kafkajs';
import { HEADERS } from '#shared/contracts/kafka.ts';
import { firstHeader, headerText } from '#shared/kafka/messages.ts';
import { traceLogFields } from '#shared/tracing/spans.ts';

const LOGGED_ID_BYTES = 64;

/** What a log line about a command says of it: its request, trace and correlation ids. */
export function commandLogFields(command: KafkaMessage, span: Span) {
  return {
    reqId: headerText(command.headers, HEADERS.requestId),
    ...traceLogFields(span),
    correlationId: printable(firstHeader(command.headers?.[HEADERS.correlationId])),
  };
}

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
