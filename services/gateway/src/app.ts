import Fastify, { type FastifyPluginAsync, type FastifyPluginCallback } from 'fastify';
import type { Topics } from '../../../shared/contracts/kafka.ts';
import type { TokenVerifier } from './bearer-auth.ts';
import type { RawAnswers } from './malformed-http.ts';
import type { GatewayMetrics } from './metrics.ts';
import { authentication } from './plugins/authentication.ts';
import { errorAnswers } from './plugins/error-answers.ts';
import { httpMetrics } from './plugins/http-metrics.ts';
import { overload, type OverloadOptions } from './plugins/overload.ts';
import { rateLimit } from './plugins/rate-limit.ts';
import { stopping, type StoppingOptions } from './plugins/stopping.ts';
import { strictHttp } from './plugins/strict-http.ts';
import { tracing } from './plugins/tracing.ts';
import { documentRoutes } from './routes/documents.ts';
import { plantRoutes } from './routes/plants.ts';
import { probeRoutes, type ProbeRoutesOptions } from './routes/probes.ts';
import { serverOptions, type ServerOptions } from './server-options.ts';

export interface AppOptions
  extends ServerOptions, OverloadOptions, StoppingOptions, ProbeRoutesOptions {
  /** Decorates the app with the use case behind POST /plants (`plugins/creates.ts`). */
  creates: FastifyPluginAsync | FastifyPluginCallback;
  /** A request passes with a bearer token that any of them accepts. */
  tokenVerifiers: readonly TokenVerifier[];
  /** Creates each token may make per minute; unlimited when absent. */
  rateLimitPerMinute?: number;
  metrics: GatewayMetrics;
  /** The topics this deployment uses, named by the AsyncAPI document. */
  topics: Topics;
}

/**
 * The gateway's HTTP layer as a Fastify instance, not listening: `main.ts` listens, tests use
 * `inject`, the bench puts its baselines behind it. The order of the plugins is the order of
 * their hooks.
 */
export async function buildApp(options: AppOptions) {
  const rawAnswers: RawAnswers = new WeakMap();
  const app = Fastify(serverOptions(options, rawAnswers));
  await app.register(tracing);
  await app.register(httpMetrics, { metrics: options.metrics, rawAnswers });
  await app.register(strictHttp);
  await app.register(authentication, { tokenVerifiers: options.tokenVerifiers });
  await app.register(overload, options);
  await app.register(rateLimit);
  await app.register(errorAnswers);
  await app.register(stopping, options);
  await app.register(documentRoutes, {
    topics: options.topics,
    registry: options.metrics.registry,
  });
  await app.register(probeRoutes, options);
  await app.register(options.creates);
  await app.register(plantRoutes, {
    replyTimeouts: options.metrics.replyTimeouts,
    ...(options.rateLimitPerMinute === undefined
      ? {}
      : { rateLimitPerMinute: options.rateLimitPerMinute }),
  });
  return app;
}

export type GatewayApp = Awaited<ReturnType<typeof buildApp>>;
