import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RawAnswers } from '../http/malformed-http.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The gateway's metrics: the routes count into them and serve them. */
    metrics: GatewayMetrics;
  }
}

const CLIENT_CLOSED_REQUEST = 499;

export interface HttpMetricsOptions {
  metrics: GatewayMetrics;
  rawAnswers: RawAnswers;
}

/**
 * Times every request by route pattern, and counts the outcomes of POST /plants. A request whose
 * client leaves before its answer is timed when it leaves, as status 499 (nginx's "client closed
 * request"): otherwise the slowest requests, those clients gave up on, would vanish from the
 * histogram. Its create is still counted once the gateway has an outcome for it. A request Node
 * refused while its body arrived (408, 400) is timed with the status written for it. Register it
 * before plugins with other `onRequest` hooks, so that a client leaving during them is seen.
 * Decorates the app with the metrics, for the routes and plugins that count into them.
 */
export const httpMetrics = fp<HttpMetricsOptions>(
  (app, { metrics, rawAnswers }, done) => {
    app.decorate('metrics', metrics);
    // Whichever comes first times a request: its answer, or its client leaving without one.
    const timed = new WeakSet<FastifyRequest>();
    const observeOnce = (request: FastifyRequest, reply: FastifyReply, status: number) => {
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
        const refused = rawAnswers.get(request.raw.socket);
        if (refused !== undefined) {
          observeOnce(request, reply, refused);
          return;
        }
        if (!observeOnce(request, reply, CLIENT_CLOSED_REQUEST)) return;
        request.log.info(
          { req: request, responseTime: reply.elapsedTime },
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
    done();
  },
  { name: 'http-metrics' },
);

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
