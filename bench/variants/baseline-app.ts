import type { FastifyPluginCallback } from 'fastify';
import fp from 'fastify-plugin';
import { TOPICS } from '#shared/contracts/kafka.ts';
import { connectionCap } from '#shared/http/limits.ts';
import type { Logger } from '#shared/logger.ts';
import { createAdmission } from '#gateway/admission/concurrency-limit.ts';
import { gatewayServer, type GatewayApp } from '#gateway/app.ts';
import { ADMISSION_DEFAULTS, HTTP_DEFAULTS, type HttpSettings } from '#gateway/config.ts';
import { admitted, type CreatePlant } from '#gateway/create-plant.ts';
import { gatewayMetrics } from '#gateway/observability/metrics.ts';

/** The shipped gateway's HTTP settings at their defaults, on the default topics. */
const SETTINGS: HttpSettings = {
  authTokens: [],
  refusalPacing: {
    perSecond: HTTP_DEFAULTS.AUTH_REFUSALS_PER_SECOND,
    delayMs: HTTP_DEFAULTS.AUTH_REFUSAL_DELAY_MS,
  },
  bodyLimitBytes: HTTP_DEFAULTS.BODY_LIMIT_BYTES,
  requestTimeoutMs: HTTP_DEFAULTS.REQUEST_TIMEOUT_MS,
  headersTimeoutMs: HTTP_DEFAULTS.HEADERS_TIMEOUT_MS,
  keepAliveTimeoutMs: HTTP_DEFAULTS.KEEP_ALIVE_TIMEOUT_MS,
  maxConnections: connectionCap(undefined, HTTP_DEFAULTS.BODY_LIMIT_BYTES).maxConnections,
  maxEventLoopDelayMs: HTTP_DEFAULTS.MAX_EVENT_LOOP_DELAY_MS,
  shutdownDrainMs: 0,
  topics: TOPICS,
  metricsOnApiPort: true,
};

/** Creates answered by `createPlant` in this process, ready at once. */
function createsWith(createPlant: CreatePlant): FastifyPluginCallback {
  return fp(
    (app, _options, done) => {
      app.decorate('createPlant', createPlant);
      app.decorate('createsNotReadyReason', () => undefined);
      done();
    },
    { name: 'creates' },
  );
}

/**
 * The gateway's server and app at their default settings with `createPlant` behind POST /plants
 * instead of Kafka: the bench's baselines, behind the same authentication, parsing and errors.
 * With `admitted`, creates pass the shipped admission limit at its defaults as well.
 */
export async function baselineApp(options: {
  logger: Logger;
  authTokens: readonly string[];
  createPlant: CreatePlant;
  admitted: boolean;
}): Promise<GatewayApp> {
  const admission = options.admitted
    ? createAdmission({
        maxInFlight: ADMISSION_DEFAULTS.MAX_IN_FLIGHT,
        createLatencyTargetMs: ADMISSION_DEFAULTS.CREATE_LATENCY_TARGET_MS,
      })
    : undefined;
  const settings = { ...SETTINGS, authTokens: options.authTokens };
  const metrics = gatewayMetrics(
    {
      waiting: () => admission?.inFlight ?? 0,
      admitted: () => admission?.limit ?? 0,
      pathLatencyMs: () => admission?.pathLatencyMs,
      ready: () => true,
    },
    {
      maxInFlight: admission === undefined ? 0 : ADMISSION_DEFAULTS.MAX_IN_FLIGHT,
      maxEventLoopDelayMs: HTTP_DEFAULTS.MAX_EVENT_LOOP_DELAY_MS,
    },
  );
  return gatewayServer(settings, {
    logger: options.logger,
    metrics,
    admission: admission ?? { hasRoom: () => true, limit: Infinity },
    creates: createsWith(
      admission === undefined ? options.createPlant : admitted(admission, options.createPlant),
    ),
  });
}
