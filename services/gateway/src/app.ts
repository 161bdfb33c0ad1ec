import Fastify, { type FastifyPluginAsync, type FastifyPluginCallback } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from '#shared/logger.ts';
import type { HttpSettings } from './config.ts';
import { refuseCreatesEarly, type Admission } from './http/early-refusal.ts';
import type { RawAnswers } from './http/malformed-http.ts';
import { serverOptions } from './http/server-options.ts';
import type { GatewayMetrics } from './observability/metrics.ts';
import { authentication } from './plugins/authentication.ts';
import { connections } from './plugins/connections.ts';
import { errorAnswers } from './plugins/error-answers.ts';
import { httpMetrics } from './plugins/http-metrics.ts';
import { overload } from './plugins/overload.ts';
import { rateLimit } from './plugins/rate-limit.ts';
import { stopping } from './plugins/stopping.ts';
import { strictHttp } from './plugins/strict-http.ts';
import { tracing } from './plugins/tracing.ts';
import { documentRoutes } from './routes/documents.ts';
import { plantRoutes } from './routes/plants.ts';
import { probeRoutes } from './routes/probes.ts';

/** What the server answers with before Fastify sees a request, and what it counts it by. */
export interface ServerDependencies {
  logger: Logger;
  metrics: GatewayMetrics;
  /** How many creates are admitted at once; beyond it they are refused from their headers. */
  admission: Admission;
  /** The answers Node's parser gave to what it refused, for the metrics to count. */
  rawAnswers: RawAnswers;
}

/**
 * The gateway's Fastify server, not listening, with nothing registered yet: its options (ids,
 * limits, timeouts, Node's own refusals in the Error shape) and a request listener that refuses
 * creates from their request line once admission has no room (`http/early-refusal.ts`).
 */
export function gatewayServer(
  settings: HttpSettings,
  { logger, metrics, admission, rawAnswers }: ServerDependencies,
) {
  return Fastify(
    serverOptions(settings, logger, rawAnswers, (fastify) =>
      refuseCreatesEarly(fastify, admission, metrics),
    ),
  );
}

export type GatewayApp = ReturnType<typeof gatewayServer>;

export interface GatewayAppOptions {
  settings: HttpSettings;
  metrics: GatewayMetrics;
  rawAnswers: RawAnswers;
  /**
   * Decorates the app with the use case behind POST /plants and with what keeps it from being
   * ready (`plugins/creates.ts`).
   */
  creates: FastifyPluginAsync | FastifyPluginCallback;
}

/**
 * The gateway's HTTP layer as one Fastify plugin, for the server `gatewayServer` makes: the order
 * of the plugins is the order of their hooks. Each plugin and route gets the settings whole and
 * reads what its options type picks of them; what one provides to the others (the metrics,
 * `authenticate`, `createPlant`, readiness, the stop) it decorates the app with, which this
 * plugin, not encapsulated, leaves on the server.
 */
export const gatewayApp = fp<GatewayAppOptions>(
  async (app, { settings, metrics, rawAnswers, creates }) => {
    await app.register(tracing);
    await app.register(httpMetrics, { metrics, rawAnswers });
    await app.register(connections, settings);
    await app.register(strictHttp);
    await app.register(authentication, settings);
    await app.register(overload, settings);
    await app.register(rateLimit);
    await app.register(errorAnswers);
    await app.register(stopping, settings);
    await app.register(creates);
    await app.register(documentRoutes, settings);
    await app.register(probeRoutes);
    await app.register(plantRoutes, settings);
  },
  { name: 'gateway-app' },
);
