import type { Kafka } from 'kafkajs';
import { TOPICS } from '#shared/contracts/kafka.ts';
import { ensureTopics } from '#shared/kafka/ensure-topics.ts';
import { connectionCap } from '#shared/http/limits.ts';
import type { Logger } from '#shared/logger.ts';
import { STARTUP_TIMEOUT_MS, startUpWithin, type StartUp } from '#shared/start-up.ts';
import { createAdmission } from './admission/concurrency-limit.ts';
import { buildApp, type GatewayApp } from './app.ts';
import { ADMISSION_DEFAULTS, HTTP_DEFAULTS, type GatewaySettings } from './config.ts';
import { admitted, type CreatePlant } from './create-plant.ts';
import { replyWaiter } from './kafka/reply-waiter.ts';
import { gatewayMetrics } from './observability/metrics.ts';
import { createsWith, kafkaCreates } from './plugins/creates.ts';
import { notReadyReason } from './health/readiness.ts';

/** What a gateway runs on, beside its settings. */
export interface GatewayClients {
  kafka: Kafka;
  logger: Logger;
  /** What waiting for the topics may take: STARTUP_TIMEOUT_MS from the call by default. */
  startUp?: StartUp;
}

export interface Gateway {
  readonly app: GatewayApp;
  /**
   * Turns `/readyz` to 503 at once and keeps serving for the drain period, then refuses new
   * requests, answers those in flight and disconnects from Kafka.
   */
  stop(): Promise<void>;
}

export async function startGateway(
  settings: GatewaySettings,
  { kafka, logger, startUp = startUpWithin(STARTUP_TIMEOUT_MS, logger) }: GatewayClients,
): Promise<Gateway> {
  await ensureTopics(kafka, settings.topics, {
    partitions: settings.partitions,
    used: ['create', 'replies'],
    startUp,
  });
  const waiter = replyWaiter();
  const admission = createAdmission(settings);
  const app = await buildApp(settings, {
    logger,
    metrics: gatewayMetrics(
      {
        waiting: () => waiter.waiting,
        admitted: () => admission.limit,
        pathLatencyMs: () => admission.pathLatencyMs,
        // Scraped once the app is built.
        ready: () => notReadyReason(app) === undefined,
      },
      settings,
    ),
    admission,
    creates: kafkaCreates(settings, { kafka, waiter, admission }),
  });
  return { app, stop: () => app.drainAndClose() };
}

/**
 * The gateway's HTTP layer with its default settings and `createPlant` behind POST /plants
 * instead of Kafka: the bench's baselines, behind the same authentication, parsing and errors.
 * With `admitted`, creates pass the shipped admission limit at its defaults as well.
 */
export function baselineApp(options: {
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
  return buildApp(
    {
      authTokens: options.authTokens,
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
    },
    {
      logger: options.logger,
      metrics: gatewayMetrics(
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
      ),
      admission: admission ?? { hasRoom: () => true, limit: Infinity },
      creates: createsWith(
        admission === undefined ? options.createPlant : admitted(admission, options.createPlant),
      ),
    },
  );
}
