import type { ProgressLine } from '#tooling/progress/progress-line.ts';
import {
  createsAnswered,
  loadPlants,
  tickLine,
  type LoadOptions,
  type LoadSecond,
} from './load.ts';
import { sampleProcesses, type SampledProcess } from '../probes/process-stats.ts';

/** One step of a warm-up: what a create cost, how long the slowest took, and what failed. */
export interface WarmUpStep {
  cpuUsPerCreate: number;
  p99Ms: number;
  /** `LoadResult.failures` of the step (absent from reports written before they were kept). */
  failures?: Record<string, number>;
}

export interface WarmUp {
  seconds: number;
  /** Its seconds, step after step (absent from reports written before they were kept). */
  perSecond?: LoadSecond[];
  /** Whether it ended at the cap, still improving, rather than once nothing fell any more. */
  capped: boolean;
  steps: WarmUpStep[];
}

/** How long each step of a warm-up loads. */
const WARM_UP_STEP_SECONDS = 5;
/** A step that improves on the one before by less than this much has stopped falling. */
const STILL_FALLING = 0.05;
/** The ids a warm-up may use from its first: the 2^32 of its range (`LOAD_OFFSET`). */
const WARM_UP_IDS = 1n << 32n;

/**
 * Whether the JIT compilers (V8 in the services, C2 in the broker) and the pools are warm:
 * neither CPU per create nor p99 fell by 5 % or more in the last step. Two steps at least, so
 * that there is a step to compare with.
 */
export function warmedUp(steps: readonly WarmUpStep[]): boolean {
  const [before, last] = steps.slice(-2);
  if (before === undefined || last === undefined) return false;
  const fell = (from: number, to: number) => to < from * (1 - STILL_FALLING);
  return !fell(before.cpuUsPerCreate, last.cpuUsPerCreate) && !fell(before.p99Ms, last.p99Ms);
}

/**
 * The measured load, in steps of 5 s, until it is warm or `capSeconds` have passed: a fixed 15 s
 * was too short on a slow day (the broker's CPU per create fell from 470 to 238 µs with 60 s).
 */
export async function warmUp(
  load: Omit<LoadOptions, 'duration' | 'amount'>,
  processes: readonly SampledProcess[],
  { capSeconds, label, progress }: { capSeconds: number; label: string; progress: ProgressLine },
): Promise<WarmUp> {
  const steps: WarmUpStep[] = [];
  const perSecond: LoadSecond[] = [];
  // Each step its own share of the range, however many steps the cap allows.
  const stepIds = WARM_UP_IDS / BigInt(Math.max(1, Math.ceil(capSeconds / WARM_UP_STEP_SECONDS)));
  while (steps.length * WARM_UP_STEP_SECONDS < capSeconds && !warmedUp(steps)) {
    const sampler = sampleProcesses(processes);
    const result = await loadPlants(
      {
        ...load,
        duration: WARM_UP_STEP_SECONDS,
        firstId: load.firstId + BigInt(steps.length) * stepIds,
      },
      (tick) => {
        const step = `${label} warm-up step ${String(steps.length + 1)}`;
        progress.update(tickLine(step, WARM_UP_STEP_SECONDS, tick));
      },
    );
    const cpuSeconds = sampler.stop().reduce((sum, { cpuSeconds: each }) => sum + each, 0);
    const creates = Math.max(1, createsAnswered(result));
    perSecond.push(...(result.perSecond ?? []));
    steps.push({
      cpuUsPerCreate: Math.round((cpuSeconds * 1e6) / creates),
      p99Ms: result.p99,
      failures: result.failures ?? {},
    });
  }
  progress.end();
  return {
    seconds: steps.length * WARM_UP_STEP_SECONDS,
    capped: !warmedUp(steps),
    steps,
    perSecond,
  };
}
