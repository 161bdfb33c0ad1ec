import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { elapsed } from '#tooling/progress/progress-line.ts';
import { runningP99 } from '#tooling/statistics/running-p99.ts';
import type { BenchRun } from '../bench-run.ts';
import { plantBody } from '../closed-loop/load.ts';
import { profileClockUs } from '../probes/cpu-profile.ts';
import {
  reapedChildrenCpuSeconds,
  sampleMachine,
  sampleProcesses,
  type SampledProcess,
} from '../probes/process-stats.ts';
import { searchCapacity, type Capacity } from './capacity.ts';
import { errorKindsText, heldTarget, rateStep, type RateStep } from './rate-step.ts';
import { attack } from '#local/load/vegeta.ts';

/** What a variant answered at steady arrival rates (`--rates`, `--capacity`). */
export interface OpenLoop {
  rates: RateStep[];
  capacity: Capacity | null;
}

/** Ids of each step, apart from the others' (at most 64 steps in a measurement's range). */
const STEP_IDS = 1n << 26n;
/** Probe creates between steps are taken from the end of the step's ids. */
const PROBE_OFFSET = 1n << 25n;
/** Probes answered within the target in a row that show the service has caught up. */
const CALM_PROBES = 3;
const SETTLE_CAP_MS = 30_000;
/** The answer time a probe must keep when no capacity target is given. */
const RATES_SETTLE_MS = 50;
/** Steps one measurement's ids hold (`STEP_IDS` each in its 2^32). */
const MAX_STEPS = 64;

/**
 * The open-loop steps of one variant, started and warm: each `--rates` rate, then the
 * `--capacity` search from half the rate the closed loop just answered. Between steps the
 * service catches up (`settle`), so that no step inherits the last one's backlog.
 */
export async function measureOpenLoop(
  run: BenchRun,
  label: string,
  {
    urls,
    firstId,
    closedLoopRate,
    sampled,
  }: {
    urls: string[];
    firstId: bigint;
    closedLoopRate: number;
    /** The variant's processes, whose CPU each step records. */
    sampled: readonly SampledProcess[];
  },
): Promise<OpenLoop> {
  const { rates, capacityTargetMs } = run.options;
  const vegeta = run.vegeta;
  if (vegeta === null) throw new Error('the open-loop load needs vegeta, provisioned at the start');
  const dir = join(run.dir, 'open-loop');
  await mkdir(dir, { recursive: true });
  const target = { vegeta, urls, dir, sampled };
  let step = 0;
  const measureAt = async (rate: number, targetMs: number): Promise<RateStep> => {
    if (step >= MAX_STEPS)
      throw new Error(`an open loop measures at most ${String(MAX_STEPS)} steps per variant`);
    const first = firstId + BigInt(step) * STEP_IDS;
    step++;
    const result = await loadStep(run, label, target, rate, first);
    run.progress.end(stepLine(label, result, targetMs));
    await settle(run, urls[0] ?? '', first + PROBE_OFFSET, targetMs);
    return result;
  };
  const steps: RateStep[] = [];
  for (const rate of rates) steps.push(await measureAt(rate, capacityTargetMs ?? Infinity));
  const capacity =
    capacityTargetMs === null
      ? null
      : await searchCapacity((rate) => measureAt(rate, capacityTargetMs), {
          targetMs: capacityTargetMs,
          startRate: closedLoopRate / 2,
        });
  return { rates: steps, capacity };
}

/** Where a variant's steps send their load, and the processes whose CPU each records. */
interface StepTarget {
  vegeta: string;
  urls: string[];
  /** Where the targets are written. */
  dir: string;
  sampled: readonly SampledProcess[];
}

/** One step at `rate`, its ids from `firstId`, with its progress shown every second. */
async function loadStep(
  run: BenchRun,
  label: string,
  { vegeta, urls, dir, sampled }: StepTarget,
  rate: number,
  firstId: bigint,
): Promise<RateStep> {
  const { duration } = run.options;
  const latencies = runningP99();
  let failed = 0;
  const startedAt = Date.now();
  const ticks = setInterval(() => {
    const ms = Date.now() - startedAt;
    const when =
      ms < duration * 1_000
        ? `${elapsed(ms)} of ${String(duration)} s`
        : `all sent, waiting for the last answers (${elapsed(ms)})`;
    run.progress.update(
      `  ${label} at ${String(rate)} req/s: ${when}, p99 so far ${latencies.p99Ms().toFixed(1)} ms (from send), ${String(failed)} failed`,
    );
  }, 1_000);
  const machine = sampleMachine();
  const processes = sampleProcesses(sampled);
  const fromUs = profileClockUs();
  try {
    // vegeta's CPU is counted once it has been waited for, among this process's children's.
    const cpuBefore = reapedChildrenCpuSeconds(process.pid);
    const hits = await attack(
      { vegeta, urls, token: run.token, rate, seconds: duration, firstId, bodyOf: plantBody, dir },
      ({ code, latencyMs }) => {
        if (code >= 200 && code < 300) latencies.record(latencyMs);
        else failed++;
      },
    );
    return {
      ...rateStep(rate, duration, hits, {
        generatorCpuSeconds: reapedChildrenCpuSeconds(process.pid) - cpuBefore,
        machineBusyPercent: machine.stop().busyPercent,
        usage: processes.stop(),
      }),
      window: { fromUs, toUs: profileClockUs() },
    };
  } finally {
    clearInterval(ticks);
  }
}

/** A finished step as one line: its latencies from intended send time, errors, and verdict. */
function stepLine(label: string, step: RateStep, targetMs: number): string {
  const errors = errorKindsText(step);
  const verdict = Number.isFinite(targetMs)
    ? `; ${heldTarget(step, targetMs) ? 'held' : 'missed'} p99 ≤ ${String(targetMs)} ms`
    : '';
  return (
    `  ${label} at ${String(step.offered)} req/s: p50 ${step.p50.toFixed(1)}, p99 ${step.p99.toFixed(1)}, ` +
    `p99.9 ${step.p999.toFixed(1)} ms, ${String(step.errors)} errors${errors === '' ? '' : ` (${errors})`}` +
    (step.behindSchedule
      ? `, BEHIND SCHEDULE (sent ${String(step.achieved)}/s, send lag p99 ${step.sendLagP99.toFixed(1)} ms)`
      : '') +
    `, vegeta ${step.generatorCpuSeconds.toFixed(1)} CPU s${verdict}`
  );
}

/**
 * Waits until creates sent one at a time are answered within the target (50 ms with `--rates`
 * alone) again, 3 in a row, at most 30 s in all: after a step the service missed, its queues
 * still hold that step's backlog.
 */
async function settle(
  run: BenchRun,
  url: string,
  firstId: bigint,
  targetMs: number,
): Promise<void> {
  const until = Date.now() + SETTLE_CAP_MS;
  let calm = 0;
  let id = firstId;
  const bound = Number.isFinite(targetMs) ? targetMs : RATES_SETTLE_MS;
  while (calm < CALM_PROBES && Date.now() < until) {
    const sentAt = performance.now();
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${run.token}`, 'content-type': 'application/json' },
      body: plantBody(id++),
      signal: AbortSignal.timeout(Math.max(1, until - Date.now())),
    }).catch(() => null);
    await response?.arrayBuffer();
    const answeredWell = response?.ok === true && performance.now() - sentAt <= bound;
    calm = answeredWell ? calm + 1 : 0;
    if (!answeredWell) await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
