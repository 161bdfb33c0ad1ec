import type { Kafka } from 'kafkajs';
import { ensureTopics } from '#shared/kafka/ensure-topics.ts';
import type { Logger } from '#shared/logger.ts';
import { STARTUP_TIMEOUT_MS, startUpWithin, type StartUp } from '#shared/start-up.ts';
import { createAdmission } from './admission/concurrency-limit.ts';
import { gatewayServer, type GatewayApp } from './app.ts';
import type { GatewaySettings } from './config.ts';
import { replyWaiter } from './kafka/reply-waiter.ts';
import { gatewayMetrics } from './observability/metrics.ts';
import { kafkaCreates } from './plugins/creates.ts';
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

/**
 * The gateway, composed: its topics ensured, its admission limit, reply waiter and metrics, the
 * server with the app's plugins and routes, and creates over Kafka behind POST /plants.
 */
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
  const metrics = gatewayMetrics(
    {
      waiting: () => waiter.waiting,
      admitted: () => admission.limit,
      pathLatencyMs: () => admission.pathLatencyMs,
      // Scraped once the app is built.
      ready: () => notReadyReason(app) === undefined,
    },
    settings,
  );
  const app = await gatewayServer(settings, {
    logger,
    metrics,
    admission,
    creates: kafkaCreates(settings, { kafka, waiter, admission }),
  });
  return { app, stop: () => app.drainAndClose() };
}
