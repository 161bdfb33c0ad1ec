import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) read here. */
interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
  }[];
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

const PROJECT_DIRS = ['services/', 'shared/', 'bench/'];

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

const top = (counts: Map<string, number>, total: number, limit: number): Share[] =>
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
    byArea: top(byArea, busy, 8),
    byFunction: top(byFunction, busy, 8),
  };
}

/**
 * The profiles `node --cpu-prof --cpu-prof-dir=<dir>` wrote as its processes exited, named after
 * the process whose pid is in the file name (CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile).
 */
export function profilesIn(dir: string, names: ReadonlyMap<number, string>): ProfileSummary[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'));
  } catch {
    return [];
  }
  return files.flatMap((file) => {
    const pid = Number(file.split('.')[3]);
    const process = names.get(pid);
    if (process === undefined) return [];
    const path = join(dir, file);
    return [summarizeProfile(JSON.parse(readFileSync(path, 'utf8')) as CpuProfile, process, path)];
  });
}
