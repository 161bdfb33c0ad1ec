import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Logger } from '../../../shared/logger.ts';
import { LATENCY_BUCKETS, serviceRegistry } from '../../../shared/metrics.ts';
import { rawAnswerStatus } from './malformed-http.ts';

const CLIENT_CLOSED_REQUEST = 499;

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly creates: Counter<'code'>;
  readonly replyTimeouts: Counter;
  readonly produceDuration: Histogram<'outcome'>;
}

/** The gateway's Prometheus metrics; `waiting` is read at each scrape. */
export function gatewayMetrics(waiting: () => number): GatewayMetrics {
  const registry = serviceRegistry('gateway');
  const registers = [registry];
  new Gauge({
    name: 'plant_store_gateway_replies_waiting',
    help: 'Create requests published and waiting for a writer to reply (bounded by MAX_IN_FLIGHT)',
    registers,
    collect() {
      this.set(waiting());
    },
  });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'plant_store_http_request_duration_seconds',
      help: 'HTTP requests by route pattern and status, from the request read to the answer sent',
      labelNames: ['method', 'route', 'status_code'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    creates: new Counter({
      name: 'plant_store_gateway_creates_total',
      help: 'Answers to POST /plants by outcome: 200, or the error code of the Error body (4009, 5040, …)',
      labelNames: ['code'],
      registers,
    }),
    replyTimeouts: new Counter({
      name: 'plant_store_gateway_reply_timeouts_total',
      help: 'Creates answered 504/5040 because no writer replied within REPLY_TIMEOUT_MS',
      registers,
    }),
    produceDuration: new Histogram({
      name: 'plant_store_gateway_kafka_produce_duration_seconds',
      help: 'Kafka sends of create commands (one send carries every command queued behind the last)',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  };
}

/**
 * Times every request by route pattern, and counts the outcomes of POST /plants. A request whose
 * client leaves before its answer is timed when it leaves, as status 499 (nginx's "client closed
 * request"): otherwise the slowest requests, those clients gave up on, would vanish from the
 * histogram. Its create is still counted once the gateway has an outcome for it. A request Node
 * refused while its body arrived (408, 400) is timed with the status written for it. Call it
 * before other `onRequest` hooks, so that a client leaving during them is seen.
 */
export function recordAnswers(
  app: FastifyInstance<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    Logger
  >,
  metrics: GatewayMetrics,
): void {
  // Whichever comes first times a request: its answer, or its client leaving without one.
  const timed = new WeakSet<FastifyRequest>();
  const observeOnce = (request: FastifyRequest, reply: FastifyReply, status: number): boolean => {
    if (timed.has(request)) return false;
    timed.add(request);
    metrics.httpDuration.observe(
      {
        method: request.method,
        // Unmatched URLs share one label: a label per URL would let any client grow the series.
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(status),
      },
      reply.elapsedTime / 1_000,
    );
    return true;
  };
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      const refused = rawAnswerStatus(request.raw.socket);
      if (refused !== undefined) {
        observeOnce(request, reply, refused);
        return;
      }
      if (!observeOnce(request, reply, CLIENT_CLOSED_REQUEST)) return;
      request.log.info(
        { responseTime: reply.elapsedTime },
        'client closed the connection before the answer',
      );
    });
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.method === 'POST' && request.routeOptions.url === '/plants') {
      metrics.creates.inc({
        code: reply.statusCode === 200 ? '200' : errorCodeOf(payload, reply.statusCode),
      });
    }
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    observeOnce(request, reply, reply.statusCode);
    done();
  });
}

/** The `error` of an Error body; the status when the body is not one. */
function errorCodeOf(payload: unknown, status: number): string {
  if (typeof payload !== 'string') return String(status);
  try {
    const { error } = JSON.parse(payload) as { error?: unknown };
    return typeof error === 'number' ? String(error) : String(status);
  } catch {
    return String(status);
  }
}
