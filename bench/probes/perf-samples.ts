import {
  areaOf,
  NO_PROJECT_FRAME,
  splitTally,
  topShares,
  type ProcessSplit,
  type ProfileSummary,
  type ProfileWindow,
} from './cpu-profile.ts';
import { groupOf, isFrameworkArea, type ProfileGroup } from './profile-groups.ts';

/** One frame of a sample's stack, leaf first: its symbol and the file it is in (`dso`). */
export interface Frame {
  symbol: string;
  dso: string;
}

/** Where a sample went: by group and caller as `splitProfile` splits, by area and function. */
export interface SampleKind {
  group: ProfileGroup;
  caller: string;
  area: string;
  function: string;
}

/** A main-thread sample of a profiled process: when, and where it went. */
interface PerfSample {
  timeUs: number;
  group: ProfileGroup;
  caller: string;
}

export interface PerfProfile {
  /** Each process's main-thread samples, by its name. */
  samples: Map<string, PerfSample[]>;
  /** Each process's main-thread samples over the whole recording, by area and function. */
  summaries: ProfileSummary[];
}

/** JavaScript code as `--perf-basic-prof` names it: `JS:*'name url:line:column`. */
const JS_FRAME = /^(?:JS|Script|Eval):[*~^+']*(.*?)\s*(\S+):(\d+):\d+$/;

/** V8 collecting garbage on the thread (the concurrent marking is on V8's worker threads). */
const GC_FRAME =
  /^v8::internal::(?:Heap::(?:CollectGarbage|PerformGarbageCollection)|Scavenge|MarkCompact|MinorMarkSweep|MinorMS|Sweeper|IncrementalMarking|ArrayBufferSweeper)/;

/** Node's own C++: a binding that JavaScript called (a socket write, a hash, a Buffer's copy). */
const NODE_NATIVE = /^node::/;

const GC: SampleKind = {
  group: 'GC',
  caller: NO_PROJECT_FRAME,
  area: '(garbage collector)',
  function: '(garbage collector)',
};

/**
 * Where a sample went, named as V8's profiles name it: the area of the nearest JavaScript frame;
 * `(native)` where Node's C++ ran below it (the binding named); `(garbage collector)`; or
 * `(program)` where no JavaScript frame is on the stack (the event loop, a socket read before its
 * callback; the first frame outside the kernel named). The caller is the nearest project frame,
 * or Fastify and Node's HTTP where one of theirs comes first.
 */
export function classify(frames: readonly Frame[]): SampleKind {
  if (frames.some(({ symbol }) => GC_FRAME.test(symbol))) return GC;
  let self: Omit<SampleKind, 'caller'> | undefined;
  let binding: string | undefined;
  for (const { symbol } of frames) {
    const js = JS_FRAME.exec(symbol);
    if (js === null) {
      if (self === undefined && NODE_NATIVE.test(symbol)) binding = symbol;
      continue;
    }
    const [, name = '', url = '', line = ''] = js;
    const area = areaOf(url, name);
    self ??=
      binding === undefined
        ? { group: groupOf(area), area, function: `${name || '(anonymous)'} ${area}:${line}` }
        : { group: 'native', area: '(native)', function: `${binding} (native)` };
    if (groupOf(area) === 'project') return { ...self, caller: area };
    if (isFrameworkArea(area)) return { ...self, caller: 'fastify & Node HTTP' };
  }
  if (self !== undefined) return { ...self, caller: NO_PROJECT_FRAME };
  const outsideKernel = frames.find(({ dso }) => !dso.includes('kernel')) ?? frames[0];
  return {
    group: 'V8 unattributed',
    caller: NO_PROJECT_FRAME,
    area: '(program)',
    function: `${outsideKernel?.symbol ?? '(unknown)'} (program)`,
  };
}

/** The first line of a sample in `perf script -F pid,tid,time,ip,sym,dso`: `pid/tid time:`. */
const SAMPLE_HEAD = /^\s*(\d+)\/(\d+)\s+(\d+)\.(\d+):/;
/** A frame line: address, symbol, `(dso)`. */
const FRAME_LINE = /^\s+[0-9a-f]+\s+(.*)\s+\((.*)\)$/;

/** The main-thread samples of the named processes (pid → name) in `perf script`'s output. */
export async function parsePerfScript(
  lines: AsyncIterable<string> | Iterable<string>,
  names: ReadonlyMap<number, string>,
  file: string,
): Promise<PerfProfile> {
  const processes = [...names.values()];
  const samples = new Map<string, PerfSample[]>(processes.map((name) => [name, []]));
  const areas = new Map(processes.map((name) => [name, new Map<string, number>()]));
  const functions = new Map(processes.map((name) => [name, new Map<string, number>()]));
  const add = (counts: Map<string, number> | undefined, key: string) =>
    counts?.set(key, (counts.get(key) ?? 0) + 1);
  let current: { process: string; timeUs: number; frames: Frame[] } | undefined;
  const finish = () => {
    if (current === undefined) return;
    const { process, timeUs, frames } = current;
    const kind = classify(frames);
    samples.get(process)?.push({ timeUs, group: kind.group, caller: kind.caller });
    add(areas.get(process), kind.area);
    add(functions.get(process), kind.function);
    current = undefined;
  };
  for await (const line of lines) {
    const head = SAMPLE_HEAD.exec(line);
    if (head !== null) {
      finish();
      const [, pid = '', tid = '', seconds = '', fraction = ''] = head;
      const process = names.get(Number(pid));
      if (process !== undefined && pid === tid)
        current = {
          process,
          timeUs: Number(seconds) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6)),
          frames: [],
        };
      continue;
    }
    const frame = FRAME_LINE.exec(line);
    if (frame !== null) current?.frames.push({ symbol: frame[1] ?? '', dso: frame[2] ?? '' });
    else if (line.trim() === '') finish();
  }
  finish();
  return {
    samples,
    summaries: processes.map((process) => {
      const busy = samples.get(process)?.length ?? 0;
      const total = Math.max(1, busy);
      return {
        process,
        file,
        busySamples: busy,
        byArea: topShares(areas.get(process) ?? new Map<string, number>(), total, 8),
        byFunction: topShares(functions.get(process) ?? new Map<string, number>(), total, 8),
      };
    }),
  };
}

/** Where each process's main thread was on a CPU within the window, as `splitProfile` gives it. */
export function splitPerfProfile(
  profile: PerfProfile,
  window: ProfileWindow,
  frequencyHz: number,
): ProcessSplit[] {
  return [...profile.samples].map(([process, samples]) => {
    const tally = splitTally();
    for (const { timeUs, group, caller } of samples)
      if (timeUs >= window.fromUs && timeUs < window.toUs) tally.add(group, caller);
    return tally.split(process, Math.round((tally.samples * 1_000_000) / frequencyHz));
  });
}
