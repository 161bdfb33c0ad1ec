import type { IncomingMessage } from 'node:http';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
} from '@opentelemetry/api';
import type { FastifyInstance } from 'fastify';
import type { IHeaders } from 'kafkajs';
import {
  messagingAttributes,
  traceContextOf,
  traceLogFields,
  tracer,
} from '#shared/tracing/spans.ts';

/** Probes and scrapes arrive every few seconds and say nothing about a create. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

const serverSpans = new WeakMap<IncomingMessage, Span>();

/**
 * A server span for every request but probes and scrapes, continuing the client's `traceparent`
 * when it sends one, with its trace and span ids on every log line of the request. The span starts
 * when Fastify makes the request's logger, so that even its first line ("incoming request") has
 * them; it ends when the response closes, answered or not. Neither headers nor the query string
 * are recorded: they may hold a token.
 */
export function traceRequests(app: FastifyInstance): void {
  app.setChildLoggerFactory((logger, bindings, options, raw) =>
    logger.child({ ...bindings, ...traceLogFields(startServerSpan(raw)) }, options),
  );
  app.addHook('onRequest', (request, reply, done) => {
    const span = serverSpans.get(request.raw);
    if (span === undefined) {
      done();
      return;
    }
    const route = request.routeOptions.url;
    if (route !== undefined) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    reply.raw.once('close', () => {
      span.setAttribute('http.response.status_code', reply.raw.statusCode);
      if (reply.raw.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      if (!reply.raw.writableFinished) span.setAttribute('error.type', 'connection closed');
      span.end();
    });
    done();
  });
}

/** The context a request's work belongs to: its server span, when it has one. */
export function requestTraceContext(raw: IncomingMessage): Context {
  const span = serverSpans.get(raw);
  return span === undefined ? ROOT_CONTEXT : trace.setSpan(ROOT_CONTEXT, span);
}

/**
 * Marks in the request's trace when its reply came back: a consumer span whose parent is the
 * writer's, named by the reply's `traceparent` (a reply without one joins no trace).
 */
export function recordReplyArrival(topic: string, partition: number, headers?: IHeaders): void {
  const parent = traceContextOf(headers);
  if (trace.getSpan(parent) === undefined) return;
  tracer
    .startSpan(
      `process ${topic}`,
      { kind: SpanKind.CONSUMER, attributes: messagingAttributes('process', topic, { partition }) },
      parent,
    )
    .end();
}

function startServerSpan(raw: IncomingMessage): Span | undefined {
  const path = (raw.url ?? '/').split('?', 1)[0] ?? '/';
  if (UNTRACED_PATHS.has(path)) return undefined;
  const method = raw.method ?? 'HTTP';
  const span = tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, 'url.path': path, 'url.scheme': 'http' },
    },
    traceContextOf(raw.headers),
  );
  serverSpans.set(raw, span);
  return span;
}
