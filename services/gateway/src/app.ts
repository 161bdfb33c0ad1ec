import Fastify, { type FastifyPluginAsync, type FastifyPluginCallback } from 'fastify';
import type { Logger } from '#shared/logger.ts';
import type { HttpSettings } from './config.ts';
import { refuseCreatesEarly, type Admission } from './http/early-refusal.ts';
import type { RawAnswers } from './http/malformed-http.ts';
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
import { serverOptions } from './http/server-options.ts';

/** What the app is given to run with, beside its settings. */
export interface AppDependencies {
  logger: Logger;
  metrics: GatewayMetrics;
  /** How many creates `createPlant` admits at once; beyond it they are refused from their headers. */
  admission: Admission;
  /**
   * Decorates the app with the use case behind POST /plants and with what keeps it from being
   * ready (`plugins/creates.ts`).
   */
  creates: FastifyPluginAsync | FastifyPluginCallback;
}

/**
 * The gateway's HTTP layer as a Fastify instance, not listening: `main.ts` listens, tests use
 * `inject`, the bench puts its baselines behind it. The order of the plugins is the order of
 * their hooks. Each plugin and route gets the settings whole and reads what its options type
 * picks of them; what one provides to the others (the metrics, `authenticate`, `createPlant`,
 * readiness, the stop) it decorates the app with.
 */
export async function buildApp(settings: HttpSettings, dependencies: AppDependencies) {
  const rawAnswers: RawAnswers = new WeakMap();
  const app = Fastify(
    serverOptions(settings, dependencies.logger, rawAnswers, (fastify) =>
      refuseCreatesEarly(fastify, dependencies.admission, dependencies.metrics),
    ),
  );
  await app.register(tracing);
  await app.register(httpMetrics, { metrics: dependencies.metrics, rawAnswers });
  await app.register(connections, settings);
  await app.register(strictHttp);
  await app.register(authentication, settings);
  await app.register(overload, settings);
  await app.register(rateLimit);
  await app.register(errorAnswers);
  await app.register(stopping, settings);
  await app.register(dependencies.creates);
  await app.register(documentRoutes, settings);
  await app.register(probeRoutes);
  await app.register(plantRoutes, settings);
  return app;
}

export type GatewayApp = Awaited<ReturnType<typeof buildApp>>;
