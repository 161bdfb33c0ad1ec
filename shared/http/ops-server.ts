import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { guardConnections } from './connection-guard.ts';
import { errorBody, type ErrorBody } from '../contracts/errors.ts';
import { nodeServerTimeouts, type HttpLimits } from './limits.ts';
import { closeIdleConnectionsAfterReading } from './keep-alive.ts';
import type { Logger } from '../logger.ts';

/** What the probes and the scrape read of a service. */
export interface ServiceHealth {
  readonly metrics: { readonly registry: Registry };
  /** Why the service cannot take work, or undefined when it can. */
  notReadyReason(): string | undefined;
}

export interface OpsServer {
  /** Where it listens, e.g. http://127.0.0.1:9464. */
  readonly url: string;
  close(): Promise<void>;
}

export interface OpsServerOptions {
  host: string;
  port: number;
  logger: Logger;
  limits: HttpLimits;
  /** Its start-up log line says "<name> listening", with its URL. */
  name: string;
  /** Its connection guard's series (`shared/http/connection-guard.ts`): `http` by default. */
  series?: string;
}

/**
 * A port for probes and Prometheus only: `/healthz` (200 while the process answers), `/readyz`
 * (503 while the service says it is not ready, while the port is at its connection cap or the
 * process out of descriptors) and `/metrics`. Its requests have no body: a request is whole once
 * its head is, so one timeout bounds both. The writer's one port; the gateway's second, where
 * METRICS_PORT is set.
 */
export async function startOpsServer(
  service: ServiceHealth,
  { host, port, logger, limits, name, series }: OpsServerOptions,
): Promise<OpsServer> {
  const { registry } = service.metrics;
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
      answerReadiness(response, guard.notReadyReason() ?? service.notReadyReason());
    } else {
      sendJson(
        response,
        404,
        errorBody('notFound', `No route for ${request.method ?? ''} ${request.url ?? ''}`),
      );
    }
  });
  closeIdleConnectionsAfterReading(server);
  const guard = guardConnections(server, {
    maxConnections: limits.maxConnections,
    registry,
    logger,
    ...(series === undefined ? {} : { series }),
  });
  server.listen(port, host);
  await once(server, 'listening');
  guard.watchAccepts();
  const { port: bound } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${String(bound)}`;
  logger.info({ url }, `${name} listening`);
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
