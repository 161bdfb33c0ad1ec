import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardConnections } from '#shared/connection-guard.ts';
import { errorBody, type ErrorBody } from '#shared/contracts/errors.ts';
import { nodeServerTimeouts, type HttpLimits } from '#shared/http-limits.ts';
import type { Logger } from '#shared/logger.ts';
import type { WriterMetrics } from './metrics.ts';

/** What the probes and the scrape read of the writer. */
export interface WriterHealth {
  readonly metrics: Pick<WriterMetrics, 'registry'>;
  /** Why the writer cannot take commands, or undefined when it can. */
  notReadyReason(): string | undefined;
}

export interface HealthServer {
  /** Where it listens, e.g. http://127.0.0.1:9464. */
  readonly url: string;
  close(): Promise<void>;
}

export interface HealthServerOptions {
  host: string;
  port: number;
  logger: Logger;
  limits: HttpLimits;
}

/**
 * The writer's one HTTP port, for probes and Prometheus only: `/healthz` (200 while the process
 * answers: the writer restarts a stopped consumer itself, and replacing it does not bring a broker
 * or the store back), `/readyz` (503 until the writer is in its group, while its consumer
 * restarts, while the store does not answer it, while the port is at its connection cap or the
 * process out of descriptors, and from the moment it stops) and `/metrics`. Its requests have no
 * body: a request is whole once its head is, so one timeout bounds both.
 */
export async function startHealthServer(
  writer: WriterHealth,
  { host, port, logger, limits }: HealthServerOptions,
): Promise<HealthServer> {
  const { registry } = writer.metrics;
  const timeouts = nodeServerTimeouts(limits, limits.headersTimeoutMs);
  const server = createServer(timeouts, (request, response) => {
    const path = request.method === 'GET' ? request.url : undefined;
    if (path === '/metrics') {
      registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (error: unknown) => {
          logger.error({ err: error }, 'metrics scrape failed');
          sendJson(response, 500, errorBody('internal', 'Internal error'));
        },
      );
    } else if (path === '/healthz') {
      sendJson(response, 200, { status: 'ok' });
    } else if (path === '/readyz') {
      answerReadiness(response, guard.notReadyReason() ?? writer.notReadyReason());
    } else {
      sendJson(
        response,
        404,
        errorBody('notFound', `No route for ${request.method ?? ''} ${request.url ?? ''}`),
      );
    }
  });
  const guard = guardConnections(server, {
    maxConnections: limits.maxConnections,
    registry,
    logger,
  });
  server.listen(port, host);
  await once(server, 'listening');
  guard.watchAccepts();
  const { port: bound } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${String(bound)}`;
  logger.info({ url }, 'writer health and metrics listening');
  return {
    url,
    close: () =>
      new Promise((resolve, reject) => {
        guard.stop();
        server.close((error) => {
          if (error === undefined) resolve();
          else reject(error);
        });
        server.closeAllConnections();
      }),
  };
}

function answerReadiness(response: ServerResponse, notReadyReason: string | undefined): void {
  if (notReadyReason === undefined) sendJson(response, 200, { status: 'ready' });
  else
    sendJson(response, 503, errorBody('unavailable', `Not ready: ${notReadyReason}`), {
      'retry-after': '1',
    });
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: object | ErrorBody,
  headers: Record<string, string> = {},
): void {
  response
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
    .end(JSON.stringify(body));
}
