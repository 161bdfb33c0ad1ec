import { percentile } from '#tooling/statistics/percentile.ts';
import type { ProcessSplit, ProfileWindow } from '../probes/cpu-profile.ts';
import type { ProcessUsage } from '../probes/process-stats.ts';
import type { Hit } from '#local/load/vegeta-results.ts';

/** One second of an open-loop step, by intended send time. */
interface OpenLoopSecond {
  second: number;
  sent: number;
  /** Answered 2xx, and their latencies from intended send time in ms. */
  ok: number;
  p50: number;
  p99: number;
  failed: number;
}

/** What clients saw at one steady arrival rate. */
export interface RateStep {
  offered: number;
  seconds: number;
  sent: number;
  /** Requests a second vegeta actually sent, first to last. */
  achieved: number;
  /** How late the generator sent, against its schedule: p99 in ms. */
  sendLagP99: number;
  /** Fewer than 99 % of the scheduled requests sent, or p99 send lag over 10 ms: not the offered rate. */
  behindSchedule: boolean;
  /** Latency of the 2xx answers from each request's intended send time, in ms. */
  p50: number;
  p99: number;
  p999: number;
  max: number;
  /** Answered other than 2xx, or not answered (timeouts, refused connections). */
  errors: number;
  /** The errors by status code, or `no answer`. */
  errorKinds: Record<string, number>;
  generatorCpuSeconds: number;
  /** The machine's CPUs busy over the step, in %, and each measured process's CPU seconds. */
  machineBusyPercent: number;
  usage: ProcessUsage[];
  perSecond: OpenLoopSecond[];
  /** When the step was offered, on the profiler's clock. */
  window?: ProfileWindow;
  /** Where each Node process's CPU went over the step (`--cpu-prof`). */
  split?: ProcessSplit[];
}

const LATE_SEND_MS = 10;
const SENT_SHARE = 0.99;

/**
 * The step's figures, latency counted from when each request was due: vegeta's pacer schedules
 * request n at start + n / rate, and a request it sent late waited on the generator, which a
 * client arriving then would have waited too (no coordinated omission). The start is the
 * earliest send time less its schedule offset: no request leaves before it is due.
 */
export function rateStep(
  offered: number,
  seconds: number,
  hits: readonly Hit[],
  measured: { generatorCpuSeconds: number; machineBusyPercent: number; usage: ProcessUsage[] },
): RateStep {
  const dueMs = (seq: number) => (seq * 1_000) / offered;
  const sentMs = (hit: Hit) => Number(hit.sentNs - (hits[0]?.sentNs ?? 0n)) / 1e6;
  const start = hits.reduce(
    (earliest, hit) => Math.min(earliest, sentMs(hit) - dueMs(hit.seq)),
    Number.POSITIVE_INFINITY,
  );
  const timed = hits.map((hit) => {
    const lag = sentMs(hit) - start - dueMs(hit.seq);
    return {
      ...hit,
      lag,
      fromDue: lag + hit.latencyMs,
      second: Math.floor(dueMs(hit.seq) / 1_000),
    };
  });
  const ok = timed.filter(({ code }) => code >= 200 && code < 300);
  const sorted = (values: number[]) => values.sort((a, b) => a - b);
  const latencies = sorted(ok.map(({ fromDue }) => fromDue));
  const lags = sorted(timed.map(({ lag }) => lag));
  const errorKinds: Record<string, number> = {};
  for (const { code } of timed) {
    if (code >= 200 && code < 300) continue;
    const kind = code === 0 ? 'no answer' : String(code);
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  }
  // From the schedule's start to the last send, plus the last request's own slot.
  const lastSentMs = timed.reduce((latest, { lag, seq }) => Math.max(latest, lag + dueMs(seq)), 0);
  const sendSeconds = (lastSentMs + 1_000 / offered) / 1_000;
  const sendLagP99 = percentile(lags, 99);
  return {
    offered,
    seconds,
    sent: hits.length,
    achieved: Math.round(hits.length / sendSeconds),
    sendLagP99,
    behindSchedule: hits.length < SENT_SHARE * offered * seconds || sendLagP99 > LATE_SEND_MS,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    p999: percentile(latencies, 99.9),
    max: percentile(latencies, 100),
    errors: hits.length - ok.length,
    errorKinds,
    generatorCpuSeconds: Math.round(measured.generatorCpuSeconds * 100) / 100,
    machineBusyPercent: measured.machineBusyPercent,
    usage: measured.usage,
    perSecond: Array.from({ length: seconds }, (_, second) => {
      const inSecond = timed.filter((hit) => hit.second === second);
      const answered = sorted(
        inSecond.filter(({ code }) => code >= 200 && code < 300).map(({ fromDue }) => fromDue),
      );
      return {
        second,
        sent: inSecond.length,
        ok: answered.length,
        p50: percentile(answered, 50),
        p99: percentile(answered, 99),
        failed: inSecond.length - answered.length,
      };
    }),
  };
}

/** A step's errors by kind, as `3 × 503, 1 × no answer` ('' when none). */
export function errorKindsText({ errorKinds }: RateStep): string {
  return Object.entries(errorKinds)
    .map(([kind, count]) => `${String(count)} × ${kind}`)
    .join(', ');
}

/** Whether a step held the latency target: on schedule, no error, p99 within `targetMs`. */
export function heldTarget(step: RateStep, targetMs: number): boolean {
  return !step.behindSchedule && step.errors === 0 && step.p99 <= targetMs;
}

/** A run's open-loop steps, its `--rates` and its capacity search's, by offered rate. */
export function stepsByRate(
  openLoop:
    { rates: readonly RateStep[]; capacity: { steps: readonly RateStep[] } | null } | undefined,
): RateStep[] {
  return [...(openLoop?.rates ?? []), ...(openLoop?.capacity?.steps ?? [])].sort(
    (a, b) => a.offered - b.offered,
  );
}
