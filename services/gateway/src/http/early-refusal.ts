import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { errorBody } from '#shared/contracts/errors.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import { busyMessage, RETRY_SHORTLY } from './api-error.ts';

/** How many creates are admitted at once now, and whether one more would be. */
export interface Admission {
  hasRoom(): boolean;
  readonly limit: number;
}

/**
 * Wraps Fastify's request listener: a POST /plants that arrives while the gateway admits no more
 * creates is answered 503/5030 with `Retry-After: 1` from its request line alone, before Fastify
 * makes a request, a logger or a span of it. Under a flood most requests are refused, and a
 * refusal through Fastify's hooks and error handler cost the gateway's one thread a good part of
 * what a create costs (docs/history/2026-12-03-figures-behind-the-comments.md); this way it costs
 * little more than writing the answer. It is
 * counted and timed like any other answer (`plant_store_gateway_creates_total`,
 * `plant_store_http_request_duration_seconds`), so the error-budget alerts see it. Node reads and
 * drops the unread body, and the connection stays open.
 */
export function refuseCreatesEarly(
  handler: RequestListener,
  admission: Admission,
  metrics: Pick<GatewayMetrics, 'creates' | 'httpDuration'>,
): RequestListener {
  const timed = metrics.httpDuration.labels({
    method: 'POST',
    route: '/plants',
    status_code: '503',
  });
  const counted = metrics.creates.labels({ code: '5030' });
  return (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST' || !isPlants(request.url) || admission.hasRoom()) {
      handler(request, response);
      return;
    }
    const startedAt = performance.now();
    const body = JSON.stringify(errorBody('unavailable', busyMessage(admission.limit)));
    response.writeHead(503, {
      ...RETRY_SHORTLY.headers,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
    counted.inc();
    timed.observe((performance.now() - startedAt) / 1_000);
  };
}

function isPlants(url: string | undefined): boolean {
  return url === '/plants' || url?.startsWith('/plants?') === true;
}
