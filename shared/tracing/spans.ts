import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/**
 * Spans of both services. Until `startTracing` registers the SDK this is the API's no-op tracer,
 * whose spans keep their parent's ids: a caller's trace context then passes through unchanged.
 */
export const tracer = trace.getTracer('plant-store');

/**
 * Used directly rather than through the global propagation API, which stays a no-op without an
 * SDK: `traceparent` and `tracestate` travel whether or not this process exports spans.
 */
const propagator = new W3CTraceContextPropagator();

/** Kafka headers (kafkajs `IHeaders`) or Node's HTTP request headers. */
type Headers = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

const headers: TextMapGetter<Headers> & TextMapSetter<Headers> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    if (value === undefined) return undefined;
    return Array.isArray(value) ? value.map(String) : value.toString();
  },
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/**
 * The trace context `traceparent`/`tracestate` carry, or the root context when they are absent or
 * unreadable: a span started from it then begins a trace of its own.
 */
export function traceContextOf(carrier: Headers | undefined): Context {
  return carrier === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, carrier, headers);
}

/** `traceparent` (and `tracestate`) naming `span` as the parent, or nothing when it has no trace. */
export function traceHeaders(span: Span): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, headers);
  return carrier;
}

/** What a log line about the work `span` records carries, so logs and traces join up. */
export function traceLogFields(span: Span | undefined): { trace_id?: string; span_id?: string } {
  const context = span?.spanContext();
  if (context === undefined || !trace.isSpanContextValid(context)) return {};
  return { trace_id: context.traceId, span_id: context.spanId };
}

export function recordFailure(span: Span, error: unknown): void {
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/**
 * Runs `send` in a producer span, child of `parent`, handing it the headers that name the span as
 * the parent of whatever consumes the message.
 */
export async function inProducerSpan<Result>(
  parent: Context,
  topic: string,
  key: string,
  send: (traceHeaders: Record<string, string>) => Promise<Result>,
): Promise<Result> {
  const span = tracer.startSpan(
    `send ${topic}`,
    { kind: SpanKind.PRODUCER, attributes: messagingAttributes('send', topic, { key }) },
    parent,
  );
  try {
    return await send(traceHeaders(span));
  } catch (error) {
    recordFailure(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Attributes of a span about a Kafka message, after OpenTelemetry's messaging conventions. */
export function messagingAttributes(
  operation: 'send' | 'process',
  topic: string,
  details: { partition?: number; offset?: string; key?: string } = {},
) {
  return {
    'messaging.system': 'kafka',
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
    'messaging.destination.name': topic,
    ...(details.partition === undefined
      ? {}
      : { 'messaging.destination.partition.id': String(details.partition) }),
    ...(details.offset === undefined ? {} : { 'messaging.kafka.offset': Number(details.offset) }),
    ...(details.key === undefined ? {} : { 'messaging.kafka.message.key': details.key }),
  };
}
