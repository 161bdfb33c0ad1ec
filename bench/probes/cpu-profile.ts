import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  groupOf,
  isFrameworkArea,
  PROFILE_GROUPS,
  PROJECT_DIRS,
  type ProfileGroup,
} from './profile-groups.ts';

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) read here. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
    children?: number[];
  }[];
  /** When profiling started, on the clock of `profileClockUs`. */
  startTime?: number;
  /** The node each sample hit, in order, and the µs since the sample before it. */
  samples?: number[];
  timeDeltas?: number[];
}

/** A stretch of a measurement on the profiler's clock (`profileClockUs`). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

/**
 * Now on the clock V8 stamps profile samples with: the monotonic clock that `process.hrtime`
 * reads too, shared by every process of the machine, so a window taken here slices the profiles
 * of the services.
 */
export function profileClockUs(): number {
  return Number(process.hrtime.bigint() / 1_000n);
}

export interface Share {
  name: string;
  /** Of the samples the process was busy (idle excluded), in %. */
  percent: number;
}

export interface ProfileSummary {
  process: string;
  /** The profile, to open as a flame graph (Chrome DevTools, speedscope). */
  file: string;
  busySamples: number;
  byArea: Share[];
  byFunction: Share[];
}

/**
 * Where a function's code lives: a package of node_modules, a module of Node, a file of the
 * project, or V8's own work (garbage collection, compiled code it cannot attribute).
 */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const packageAt = url.lastIndexOf('/node_modules/');
  if (packageAt !== -1) {
    const [scope, name] = url.slice(packageAt + '/node_modules/'.length).split('/');
    return scope?.startsWith('@') === true ? `${scope}/${name ?? ''}` : (scope ?? url);
  }
  if (url.startsWith('node:')) return url;
  const project = PROJECT_DIRS.map((dir) => url.indexOf(`/${dir}`)).find((at) => at !== -1);
  return project === undefined ? url : url.slice(project + 1);
}

/** The largest counts as shares of `total`, in % to one decimal. */
export const topShares = (counts: Map<string, number>, total: number, limit: number): Share[] =>
  [...counts]
    .sort(([, a], [, b]) => b - a)
    .slice(0, limit)
    .map(([name, count]) => ({ name, percent: Math.round((count / total) * 1000) / 10 }));

/** Self time by area and by function, as shares of the samples in which the process was busy. */
export function summarizeProfile(
  profile: CpuProfile,
  process: string,
  file: string,
): ProfileSummary {
  const byArea = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const { callFrame, hitCount = 0 } of profile.nodes) {
    if (hitCount === 0 || callFrame.functionName === '(idle)') continue;
    busy += hitCount;
    const area = areaOf(callFrame.url, callFrame.functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + hitCount);
    const name = `${callFrame.functionName || '(anonymous)'} ${area}:${String(callFrame.lineNumber + 1)}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hitCount);
  }
  return {
    process,
    file,
    busySamples: busy,
    byArea: topShares(byArea, busy, 8),
    byFunction: topShares(byFunction, busy, 8),
  };
}

/** Where one process's busy samples of a window went, by group (`PROFILE_GROUPS`), largest first. */
export interface ProcessSplit {
  process: string;
  busySamples: number;
  /**
   * How long its main thread was busy within the window, in µs: by V8's samples, the intervals
   * before them, which take in time spent waiting for a CPU; by perf's, their number over the
   * frequency, on a CPU only.
   */
  busyUs: number;
  byGroup: Share[];
  /**
   * The same samples by the project file they were spent for: the nearest project frame up the
   * stack, or Fastify and Node's HTTP where one of their own frames comes first (so a hook that
   * hands back to Fastify is not charged with the answer it writes; a library Fastify also uses,
   * such as secure-json-parse, is charged to the project file that called it), or
   * `(no project frame)`.
   */
  byCaller: Share[];
}

export const NO_PROJECT_FRAME = '(no project frame)';

/** Where a profile node's code lives, and its group; no group for the idle node. */
interface NodeKind {
  area: string;
  group: ProfileGroup | undefined;
  framework: boolean;
}

/** Each node's caller as `ProcessSplit.byCaller` names it, by walking up from the node. */
function callersOf(profile: CpuProfile, kinds: ReadonlyMap<number, NodeKind>): Map<number, string> {
  const parents = new Map<number, number>();
  for (const { id, children = [] } of profile.nodes)
    for (const child of children) parents.set(child, id);
  const callers = new Map<number, string>();
  const callerOf = (id: number): string => {
    const known = callers.get(id);
    if (known !== undefined) return known;
    const kind = kinds.get(id);
    const parent = parents.get(id);
    const caller =
      kind?.group === 'project'
        ? kind.area
        : kind?.framework === true
          ? 'fastify & Node HTTP'
          : parent === undefined
            ? NO_PROJECT_FRAME
            : callerOf(parent);
    callers.set(id, caller);
    return caller;
  };
  for (const { id } of profile.nodes) callerOf(id);
  return callers;
}

/** The busy samples a process's profile took within the window, as shares by group. */
export function splitProfile(
  profile: CpuProfile,
  process: string,
  window: ProfileWindow,
): ProcessSplit {
  const kinds = new Map(
    profile.nodes.map(({ id, callFrame }): [number, NodeKind] => {
      const area = areaOf(callFrame.url, callFrame.functionName);
      const group = callFrame.functionName === '(idle)' ? undefined : groupOf(area);
      return [id, { area, group, framework: isFrameworkArea(area) }];
    }),
  );
  const callers = callersOf(profile, kinds);
  const tally = splitTally();
  const { samples = [], timeDeltas = [] } = profile;
  let at = profile.startTime ?? 0;
  let busyUs = 0;
  samples.forEach((id, index) => {
    const delta = timeDeltas[index] ?? 0;
    at += delta;
    const group = kinds.get(id)?.group;
    if (group === undefined || at < window.fromUs || at >= window.toUs) return;
    busyUs += delta;
    tally.add(group, callers.get(id) ?? NO_PROJECT_FRAME);
  });
  return tally.split(process, busyUs);
}

/**
 * Busy samples counted by group and by caller, for either sampler's split of a window; `split`
 * gives them as shares, with the main thread's busy time the sampler measured.
 */
export function splitTally() {
  const counts = new Map<string, number>(PROFILE_GROUPS.map((group) => [group, 0]));
  const byCaller = new Map<string, number>();
  let busy = 0;
  return {
    add(group: ProfileGroup, caller: string): void {
      busy++;
      counts.set(group, (counts.get(group) ?? 0) + 1);
      byCaller.set(caller, (byCaller.get(caller) ?? 0) + 1);
    },
    get samples(): number {
      return busy;
    },
    split(process: string, busyUs: number): ProcessSplit {
      return {
        process,
        busySamples: busy,
        busyUs,
        byGroup: topShares(counts, Math.max(1, busy), PROFILE_GROUPS.length).filter(
          ({ percent }) => percent > 0,
        ),
        byCaller: topShares(byCaller, Math.max(1, busy), 8),
      };
    },
  };
}

export interface NamedProfile {
  process: string;
  file: string;
  profile: CpuProfile;
}

/**
 * The profiles `node --cpu-prof --cpu-prof-dir=<dir>` wrote as its processes exited, named after
 * the process whose pid is in the file name (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile).
 */
export function profilesIn(dir: string, names: ReadonlyMap<number, string>): NamedProfile[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  } catch {
    return [];
  }
  return files.flatMap((file) => {
    const process = names.get(Number(file.split('.')[3]));
    if (process === undefined) return [];
    const path = join(dir, file);
    return [{ process, file: path, profile: JSON.parse(readFileSync(path, 'utf8')) as CpuProfile }];
  });
}
