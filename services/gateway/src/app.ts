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

/** What the gateway's server runs with, beside its settings. */
export interface ServerDependencies {
  logger: Logger;
  metrics: GatewayMetrics;
  /** How many creates are admitted at once; beyond it they are refused from their headers. */
  admission: Admission;
  /**
   * Decorates the app with the use case behind POST /plants and with what keeps it from being
   * ready (`plugins/creates.ts`).
   */
  creates: FastifyPluginAsync | FastifyPluginCallback;
}

interface GatewayAppOptions {
  settings: HttpSettings;
  metrics: GatewayMetrics;
  /** The answers Node's parser gave to what it refused, for the metrics to count. */
  rawAnswers: RawAnswers;
  creates: ServerDependencies['creates'];
}

/**
 * The gateway's HTTP layer as one Fastify plugin: the order of the plugins is the order of their
 * hooks. Each plugin and route gets the settings whole and reads what its options type picks of
 * them; what one provides to the others (the metrics, `authenticate`, `createPlant`, readiness,
 * the stop) it decorates the app with, which this plugin, not encapsulated, leaves on the server.
 */
const gatewayApp = fp<GatewayAppOptions>(
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

/**
 * The gateway's Fastify server, not listening, with the app on it: its options (ids, limits,
 * timeouts, Node's own refusals in the Error shape), a request listener that refuses creates
 * from their request line once admission has no room (`http/early-refusal.ts`), then
 * `gatewayApp`.
 */
export async function gatewayServer(
  settings: HttpSettings,
  { logger, metrics, admission, creates }: ServerDependencies,
) {
  const rawAnswers: RawAnswers = new WeakMap();
  const server = Fastify(
    serverOptions(settings, logger, rawAnswers, (fastify) =>
      refuseCreatesEarly(fastify, admission, metrics),
    ),
  );
  await server.register(gatewayApp, { settings, metrics, rawAnswers, creates });
  return server;
}

export type GatewayApp = Awaited<ReturnType<typeof gatewayServer>>;
