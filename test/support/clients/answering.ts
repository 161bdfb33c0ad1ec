import { writerMetrics } from '#writer/observability/metrics.ts';
import { createLogger } from '#shared/logger.ts';

/**
 * What answering commands needs beside the store and Kafka, for unit tests: the default topics, a
 * silent logger and metrics with no lag, ready and the store answering.
 */
export function quietAnswering() {
  return {
    topics: { create: 'plants.create', dlq: 'plants.create.dlq' },
    logger: createLogger('writer', 'silent'),
    metrics: writerMetrics({
      lags: () => Promise.resolve([]),
      ready: () => true,
      storeSilentMs: () => 0,
      storeRefusingMs: () => 0,
      storeRoundTripMs: () => undefined,
    }),
  };
}
