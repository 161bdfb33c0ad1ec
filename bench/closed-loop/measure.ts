import { join } from 'node:path';
import type { BenchRun } from '../bench-run.ts';
import { brokerRequests, requestsPerThousand } from '../probes/broker-requests.ts';
import { profileClockUs, profilesIn, type ProfileWindow } from '../probes/cpu-profile.ts';
import { PERF_NODE_OPTIONS, perfUnusable, startPerfRecord } from '../probes/perf-record.ts';
import type { PerfProfile } from '../probes/perf-samples.ts';
import { withProfiles } from '../probes/profiled-result.ts';
import { LOAD_OFFSET } from './id-ranges.ts';
import { measureOpenLoop } from '../open-loop/measure-open-loop.ts';
import { createsAnswered, loadPlants, tickLine, type LoadResult } from './load.ts';
import type { Variant } from '../options.ts';
import {
  sampleMachine,
  sampleProcesses,
  type MachineUsage,
  type ProcessUsage,
  type SampledProcess,
} from '../probes/process-stats.ts';
import { fetchedBetween, replyFetchesOf, type ReplyFetches } from '../probes/reply-fetches.ts';
import type { VariantResult } from '../report/results.ts';
import { soakAt80Percent } from './soak.ts';
import { startVariant, type StartedVariant } from '../variants/variants.ts';
import { warmUp } from './warm-up.ts';

/** Clients retrying stored plants beside the measured load. */
export const RETRY_CONNECTIONS = 4;

/** Clients that retry plants already stored, beside the measured load. */
export interface Retrying {
  label: string;
  /** The stored plants the retries pick from at random. */
  retryOf: { first: bigint; count: number };
  /** Keeps the fresh ids of each retrying run apart. */
  run: bigint;
  /** Fresh creates per second over all connections; as fast as answered when absent. */
  overallRate?: number;
}

/**
 * One variant under load. With `retrying`, clients that send retries of stored plants run beside
 * the measured load, on fresh ids of their own range for the load itself.
 */
export async function measure(
  run: BenchRun,
  variant: Variant,
  round: number,
  retrying?: Retrying,
): Promise<VariantResult> {
  // perf samples the services where it can, naming their JavaScript frames from the map files
  // they write; elsewhere each Node process writes V8's profile as it exits (`node --cpu-prof`).
  const profileDir = join(run.dir, 'profiles', `${variant}-${String(round)}`);
  const profiling = run.options.cpuProfile && retrying === undefined;
  const perfUnusableBecause = profiling ? perfUnusable() : undefined;
  const byPerf = profiling && perfUnusableBecause === undefined;
  const started = await startVariant(
    run,
    variant,
    profiling
      ? {
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} ${byPerf ? PERF_NODE_OPTIONS : `--cpu-prof --cpu-prof-dir=${profileDir}`}`,
        }
      : {},
  );
  const names = new Map(started.services.map(({ pid, name }) => [pid, name]));
  const recording = byPerf
    ? startPerfRecord([...names.keys()], join(profileDir, 'perf.data'))
    : undefined;
  let result: VariantResult;
  let recorded: PerfProfile | Error | undefined;
  try {
    result = await measureStarted(run, variant, round, started, retrying);
  } finally {
    recorded = await recording
      ?.stop(names)
      .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
    await Promise.all(started.services.map((service) => service.stop()));
  }
  if (!profiling) return result;
  if (recorded instanceof Error)
    return { ...result, splitSampler: `perf failed: ${recorded.message}` };
  return withProfiles(
    result,
    recorded === undefined
      ? { v8: profilesIn(profileDir, names), because: perfUnusableBecause ?? '' }
      : { perf: recorded },
  );
}

/** Warm-up, the measured load with every process sampled, then the sequential and soak loads. */
async function measureStarted(
  run: BenchRun,
  variant: Variant,
  round: number,
  { services, urls }: StartedVariant,
  retrying: Retrying | undefined,
): Promise<VariantResult> {
  const { options, token } = run;
  const { connections, warmup } = options;
  const firstId = run.ids.firstId(variant, round, retrying?.run);
  const watched = watchedProcesses(run, variant, services);
  const { sampled } = watched;
  // JIT compilers (V8 in the services, C2 in the broker) and connection pools warm up first.
  const warm =
    warmup === 0
      ? undefined
      : await warmUp({ urls, token, connections, firstId: firstId + LOAD_OFFSET.warmup }, sampled, {
          capSeconds: warmup,
          label: variant,
          progress: run.progress,
        });
  const measured = await measuredLoad(run, variant, urls, firstId, watched, retrying);
  const { load } = measured;
  // After every figure of the closed loop is read: its windows must not take in these steps.
  const openLoop =
    options.rates.length === 0 && options.capacityTargetMs === null
      ? undefined
      : await measureOpenLoop(run, options.repeat > 1 ? `${variant} #${String(round)}` : variant, {
          urls,
          firstId: firstId + LOAD_OFFSET.openLoop,
          closedLoopRate: load.requestsPerSecond,
          sampled,
        });
  const seq = await sequentialLoad(run, variant, urls, firstId, retrying);
  const soak =
    variant === 'e2e' &&
    options.soakSeconds > 0 &&
    retrying === undefined &&
    round === options.repeat
      ? await soakAt80Percent(run, urls, services, load, firstId + LOAD_OFFSET.soak)
      : null;
  const { requests, replyFetches } = measured;
  return {
    variant: retrying?.label ?? variant,
    round,
    load,
    sequential: seq,
    usage: measured.usage,
    loadWindow: measured.loadWindow,
    machine: measured.machine,
    soak,
    retries: measured.retries,
    ...(requests === undefined ? {} : { brokerRequestsPerThousand: requests }),
    ...(replyFetches === undefined ? {} : { replyFetches }),
    ...(warm === undefined ? {} : { warmUp: warm }),
    ...(openLoop === undefined ? {} : { openLoop }),
  };
}

/** The processes a variant's loads sample, and the brokers among them. */
interface Watched {
  sampled: SampledProcess[];
  brokerPids: number[];
}

/** The variant's services, the brokers it goes through and the store it writes to. */
function watchedProcesses(
  { stack }: BenchRun,
  variant: Variant,
  services: StartedVariant['services'],
): Watched {
  const { backend } = stack.mongo;
  const withoutStore = runsWithoutStore(variant);
  const store = withoutStore ? [] : [stack.mongo.process];
  const kafka = variant === 'e2e' || variant === 'nestjs' ? [...stack.kafka.nodes.values()] : [];
  const sampled = [
    ...[...services, ...kafka, ...store].map(({ name, pid }) => ({ name, pid })),
    ...(backend === undefined || withoutStore
      ? []
      : [{ name: backend.name, pid: backend.pid, withChildren: true }]),
  ];
  return { sampled, brokerPids: kafka.map(({ pid }) => pid) };
}

function runsWithoutStore(variant: Variant): boolean {
  return variant === 'ceiling' || variant === 'bare';
}

/** The figures read over the measured load. */
interface MeasuredLoad {
  load: LoadResult;
  retries: LoadResult | null;
  usage: ProcessUsage[];
  loadWindow: ProfileWindow;
  machine: MachineUsage;
  replyFetches: ReplyFetches[] | undefined;
  requests: Record<string, number> | undefined;
}

/**
 * The measured load, with the processes, the machine, the gateways' reply fetches and the brokers'
 * requests read over it.
 */
async function measuredLoad(
  run: BenchRun,
  variant: Variant,
  urls: string[],
  firstId: bigint,
  { sampled, brokerPids }: Watched,
  retrying: Retrying | undefined,
): Promise<MeasuredLoad> {
  // Read before the CPU sampling starts: attaching starts the broker's JMX agent.
  const requestsBefore = brokerPids.length === 0 ? null : await brokerRequests(brokerPids);
  const sampler = sampleProcesses(sampled);
  const loadFromUs = profileClockUs();
  const fetchesBefore = variant === 'e2e' ? await replyFetchesOf(urls) : null;
  const machineSampler = sampleMachine();
  const [load, retries] = await loadWithRetries(run, variant, urls, firstId, retrying);
  run.progress.end();
  const usage = sampler.stop();
  const loadWindow = { fromUs: loadFromUs, toUs: profileClockUs() };
  const machine = machineSampler.stop();
  const replyFetches =
    fetchesBefore === null ? undefined : fetchedBetween(fetchesBefore, await replyFetchesOf(urls));
  const requestsAfter = requestsBefore === null ? null : await brokerRequests(brokerPids);
  const requests =
    requestsBefore === null || requestsAfter === null
      ? undefined
      : requestsPerThousand(requestsBefore, requestsAfter, createsAnswered(load));
  return { load, retries, usage, loadWindow, machine, replyFetches, requests };
}

/** The measured load, and with `retrying` the retries of stored plants beside it. */
function loadWithRetries(
  run: BenchRun,
  variant: Variant,
  urls: string[],
  firstId: bigint,
  retrying: Retrying | undefined,
): Promise<[LoadResult, LoadResult | null]> {
  const { token, options } = run;
  const { connections, duration } = options;
  return Promise.all([
    loadPlants(
      {
        urls,
        token,
        connections,
        duration,
        firstId,
        ...(retrying?.overallRate === undefined ? {} : { overallRate: retrying.overallRate }),
      },
      (tick) => {
        run.progress.update(tickLine(`${variant} measured`, duration, tick));
      },
    ),
    retrying === undefined
      ? null
      : loadPlants({
          urls,
          token,
          connections: RETRY_CONNECTIONS,
          duration,
          firstId: run.ids.preloaded,
          retryOf: retrying.retryOf,
        }),
  ]);
}

/** One request at a time on one gateway, where the variant has a store and no retries run. */
async function sequentialLoad(
  { options, token }: BenchRun,
  variant: Variant,
  urls: string[],
  firstId: bigint,
  retrying: Retrying | undefined,
): Promise<LoadResult | null> {
  const { sequential } = options;
  return runsWithoutStore(variant) || sequential === 0 || retrying !== undefined
    ? null
    : await loadPlants({
        urls: urls.slice(0, 1),
        token,
        connections: 1,
        amount: sequential,
        firstId: firstId + LOAD_OFFSET.sequential,
      });
}
