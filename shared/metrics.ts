import { Registry, collectDefaultMetrics, type Histogram, type LabelValues } from 'prom-client';
import { kafkaRequestTimeouts } from './kafka/sockets.ts';

/** Seconds, from a cached answer (~1 ms) to the default reply deadline (5 s) and beyond. */
export const LATENCY_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * A registry of the service's own, with Node's default process metrics and the process's Kafka
 * request timeouts: several gateways and
 * writers share one process in tests, so none of them uses prom-client's global registry.
 */
export function serviceRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  registry.registerMetric(kafkaRequestTimeouts);
  return registry;
}

/** Times `call` into `histogram`, labelled `outcome` "ok" or "error" besides `labels`. */
export async function timed<Result, Label extends string>(
  histogram: Histogram<Label | 'outcome'>,
  labels: LabelValues<Label | 'outcome'>,
  call: () => Promise<Result>,
): Promise<Result> {
  const done = histogram.startTimer(labels);
  const outcome = (value: string) => ({ outcome: value }) as LabelValues<Label | 'outcome'>;
  try {
    const result = await call();
    done(outcome('ok'));
    return result;
  } catch (error) {
    done(outcome('error'));
    throw error;
  }
}
