import type { FastifyInstance } from 'fastify';
import type { HttpLimits } from '#shared/http/limits.ts';
import type { Logger } from '#shared/logger.ts';
import { startOpsServer, type OpsServer } from '#shared/http/ops-server.ts';
import { notReadyReason } from './readiness.ts';

/** Prometheus and a probe or two hold its connections: a stranger who reaches it gets no more. */
const METRICS_PORT_CONNECTIONS = 64;

/**
 * `/metrics`, with `/healthz` and `/readyz` as the API port answers them, on a port of their own
 * (METRICS_PORT), so that a network policy can open it to Prometheus alone; the API port then
 * serves no `/metrics`. Its connections are bounded and counted as `plant_store_metrics_http_*`.
 */
export function startOpsPort(
  app: Pick<FastifyInstance, 'metrics'> & Parameters<typeof notReadyReason>[0],
  options: {
    host: string;
    port: number;
    logger: Logger;
    limits: Omit<HttpLimits, 'maxConnections'>;
  },
): Promise<OpsServer> {
  return startOpsServer(
    { metrics: app.metrics, notReadyReason: () => notReadyReason(app) },
    {
      host: options.host,
      port: options.port,
      logger: options.logger,
      limits: { ...options.limits, maxConnections: METRICS_PORT_CONNECTIONS },
      name: 'gateway metrics and probes',
      series: 'metrics_http',
    },
  );
}
