import type { LoadResult } from '../closed-loop/load.ts';
import type { WarmUp } from '../closed-loop/warm-up.ts';
import type { OpenLoop } from '../open-loop/measure-open-loop.ts';
import type { Calibration } from '../probes/calibration.ts';
import type { ProcessSplit, ProfileSummary, ProfileWindow } from '../probes/cpu-profile.ts';
import type { MachineUsage, ProcessUsage } from '../probes/process-stats.ts';
import type { ReplyFetches } from '../probes/reply-fetches.ts';

export interface SoakResult {
  seconds: number;
  rate: number;
  load: LoadResult;
  processes: string[];
  /** RSS of each process (in the order of `processes`) every 10 s, from the start of the soak. */
  samples: { second: number; rssMiB: number[] }[];
}

export interface VariantResult {
  variant: string;
  /** Which repetition of the comparison it belongs to, from 1 (`--repeat`). */
  round: number;
  load: LoadResult;
  sequential: LoadResult | null;
  usage: ProcessUsage[];
  /** The whole machine over the measured window (absent from reports written before it was). */
  machine?: MachineUsage;
  soak: SoakResult | null;
  /** Retries of stored plants sent beside the load (`--preload`). */
  retries: LoadResult | null;
  /** Requests of each kind the brokers handled per 1,000 creates answered, from their JMX. */
  brokerRequestsPerThousand?: Record<string, number>;
  /** Where each Node process spent its CPU over its whole life (`--cpu-prof`). */
  profiles?: ProfileSummary[];
  /** When the measured load ran, on the profiler's clock. */
  loadWindow?: ProfileWindow;
  /**
   * What sampled the splits of the windows: `perf` (Linux perf, on a CPU only), or V8 with why
   * perf did not (`--cpu-prof`).
   */
  splitSampler?: string;
  /** Where each Node process's CPU went over the measured load (`--cpu-prof`). */
  loadSplit?: ProcessSplit[];
  /** What each gateway's reply consumer fetched during the load, in gateway order (e2e). */
  replyFetches?: ReplyFetches[];
  /** The warm-up before the measured load (absent from reports written before it was measured). */
  warmUp?: WarmUp;
  /** The steady arrival rates after it (`--rates`, `--capacity`). */
  openLoop?: OpenLoop;
}

export interface Report {
  startedAt: string;
  calibration: Calibration;
  settings: {
    connections: number;
    duration: number;
    warmup: number;
    partitions: number;
    writers: number;
    gateways: number;
    sequential: number;
    repeat: number;
    preload: number;
    store: string;
    logLevel: string;
    idsBeyond2To53: boolean;
    /** Absent from reports written before the open loop. */
    rates?: number[];
    capacityTargetMs?: number | null;
  };
  documentsStoredAtEnd: number;
  results: VariantResult[];
}

/** A run's name in tables and charts: its variant, and its repetition when there are several. */
export function runLabel(result: VariantResult, repeat: number): string {
  return repeat > 1 && result.retries === null
    ? `${result.variant} #${String(result.round)}`
    : result.variant;
}
