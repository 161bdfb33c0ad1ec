import { stepsByRate } from '../open-loop/rate-step.ts';
import type { ProcessSplit } from '../probes/cpu-profile.ts';
import type { VariantResult } from './results.ts';

/** What one load cost per create: each process's CPU over the requests sent, in µs. */
export interface CostPoint {
  /** The offered rate of an open-loop step; the closed loop's own rate for its point. */
  rate: number;
  closedLoop: boolean;
  byProcess: { name: string; us: number }[];
  totalUs: number;
  /** The requests sent, over which each figure is taken. */
  requests: number;
  p50: number;
  p99: number;
  /** Where each Node process's CPU went (`--cpu-prof`). */
  split?: ProcessSplit[];
}

/**
 * A run's CPU per create against the rate it was offered: each open-loop step (rates and the
 * capacity search, by rate), then the closed loop as the last point. Idle is not subtracted: an
 * operator pays for it at that rate too.
 */
export function costCurve(result: VariantResult): CostPoint[] {
  const steps = stepsByRate(result.openLoop).map((step) => ({
    ...costOf(step.usage, step.sent),
    rate: step.offered,
    closedLoop: false,
    p50: step.p50,
    p99: step.p99,
    ...(step.split === undefined ? {} : { split: step.split }),
  }));
  const { load } = result;
  return [
    ...steps,
    {
      ...costOf(result.usage, load.requests),
      rate: load.requestsPerSecond,
      closedLoop: true,
      p50: load.p50,
      p99: load.p99,
      ...(result.loadSplit === undefined ? {} : { split: result.loadSplit }),
    },
  ];
}

function costOf(usage: readonly { name: string; cpuSeconds: number }[], requests: number) {
  const perRequest = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, requests));
  const byProcess = usage.map(({ name, cpuSeconds }) => ({ name, us: perRequest(cpuSeconds) }));
  const totalUs = perRequest(usage.reduce((total, { cpuSeconds }) => total + cpuSeconds, 0));
  return { byProcess, totalUs, requests };
}
