import { setTimeout as sleep } from 'node:timers/promises';
import type { Kafka } from 'kafkajs';
import { TOPICS, type Topics } from '../../../shared/contracts/kafka.ts';
import { ensureTopics } from '../../../shared/ensure-topics.ts';
import type { Logger } from '../../../shared/logger.ts';
import { buildApp, type GatewayApp } from './app.ts';
import { HTTP_DEFAULTS } from './config.ts';
import type { CreatePlant } from './create-plant.ts';
import { replyWaiter } from './reply-waiter.ts';
import { jwtVerifier, type JwtOptions } from './jwt-tokens.ts';
import { gatewayMetrics } from './metrics.ts';
import { createsWith, kafkaCreates } from './plugins/creates.ts';
import { staticTokenVerifier } from './static-tokens.ts';

export interface GatewayOptions {
  kafka: Kafka;
  logger: Logger;
  /** Static bearer tokens; with `jwt`, either is accepted. At least one must be configured. */
  authTokens: readonly string[];
  jwt?: JwtOptions;
  replyTimeoutMs: number;
  bodyLimitBytes: number;
  /** How long a client may take to send a whole request, headers and body, before 408. */
  requestTimeoutMs: number;
  rateLimitPerMinute?: number;
  maxInFlight: number;
  maxEventLoopDelayMs: number;
  eventLoopSampleMs?: number;
  /** How long a stopping gateway keeps serving with `/readyz` at 503, so balancers drain it. */
  shutdownDrainMs: number;
  partitions: number;
  topics?: Topics;
}

export interface Gateway {
  readonly app: GatewayApp;
  /**
   * Turns `/readyz` to 503 at once and keeps serving for the drain period, then refuses new
   * requests, answers those in flight and disconnects from Kafka.
   */
  stop(): Promise<void>;
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const tokenVerifiers = [
    ...(options.authTokens.length > 0 ? [staticTokenVerifier(options.authTokens)] : []),
    ...(options.jwt === undefined ? [] : [jwtVerifier(options.jwt)]),
  ];
  if (tokenVerifiers.length === 0) throw new Error('No authentication configured');
  const topics = options.topics ?? TOPICS;
  await ensureTopics(options.kafka, topics, options.partitions, ['create', 'replies']);
  const waiter = replyWaiter();
  const metrics = gatewayMetrics(() => waiter.waiting, {
    maxInFlight: options.maxInFlight,
    maxEventLoopDelayMs: options.maxEventLoopDelayMs,
  });
  let stopped: Promise<void> | undefined;
  let closing = false;
  const app = await buildApp({
    logger: options.logger,
    tokenVerifiers,
    bodyLimitBytes: options.bodyLimitBytes,
    requestTimeoutMs: options.requestTimeoutMs,
    ...(options.rateLimitPerMinute === undefined
      ? {}
      : { rateLimitPerMinute: options.rateLimitPerMinute }),
    creates: kafkaCreates({
      kafka: options.kafka,
      topics,
      waiter,
      produceDuration: metrics.produceDuration,
      replyTimeoutMs: options.replyTimeoutMs,
      maxInFlight: options.maxInFlight,
    }),
    metrics,
    topics,
    maxEventLoopDelayMs: options.maxEventLoopDelayMs,
    ...(options.eventLoopSampleMs === undefined
      ? {}
      : { eventLoopSampleMs: options.eventLoopSampleMs }),
    notReadyReason: () => {
      if (stopped !== undefined) return 'shutting down';
      return app.replyConsumer.isReady() ? undefined : 'the reply consumer is not assigned yet';
    },
    isStopping: () => closing,
  });
  return {
    app,
    stop() {
      stopped ??= (async () => {
        await sleep(options.shutdownDrainMs);
        closing = true;
        // Answers the requests in flight, then disconnects the Kafka clients (their onClose).
        await app.close();
      })();
      return stopped;
    },
  };
}

/**
 * The gateway's HTTP layer with its default settings and `createPlant` behind POST /plants
 * instead of Kafka: the bench's baselines, behind the same authentication, parsing and errors.
 */
export function baselineApp(options: {
  logger: Logger;
  authTokens: readonly string[];
  createPlant: CreatePlant;
}): Promise<GatewayApp> {
  return buildApp({
    logger: options.logger,
    tokenVerifiers: [staticTokenVerifier(options.authTokens)],
    bodyLimitBytes: HTTP_DEFAULTS.BODY_LIMIT_BYTES,
    requestTimeoutMs: HTTP_DEFAULTS.REQUEST_TIMEOUT_MS,
    maxEventLoopDelayMs: HTTP_DEFAULTS.MAX_EVENT_LOOP_DELAY_MS,
    creates: createsWith(options.createPlant),
    metrics: gatewayMetrics(() => 0, {
      maxInFlight: 0,
      maxEventLoopDelayMs: HTTP_DEFAULTS.MAX_EVENT_LOOP_DELAY_MS,
    }),
    topics: TOPICS,
    notReadyReason: () => undefined,
    isStopping: () => false,
  });
}
