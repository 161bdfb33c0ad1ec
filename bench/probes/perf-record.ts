import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { parsePerfScript, type PerfProfile } from './perf-samples.ts';

/**
 * How many samples perf takes a second of each profiled thread while it is on a CPU. It samples
 * by the timer interrupt of the CPU a thread runs on; V8's own sampler (`node --cpu-prof`)
 * signals the thread from another thread, and on a machine with fewer cores than busy processes
 * that signal lands late, when the thread runs again: after the socket write that woke another
 * process, which it then charges with the wait. It also costs each idle process 45–50 ms of CPU
 * a second.
 */
export const PERF_FREQUENCY_HZ = 499;

/** What Node needs to name its JavaScript frames to perf: a map file of its compiled code. */
export const PERF_NODE_OPTIONS = '--perf-basic-prof --interpreted-frames-native-stack';

/** Why `perf record` cannot sample here (not installed, not permitted), or undefined if it can. */
export function perfUnusable(): string | undefined {
  const file = join(tmpdir(), `plant-store-perf-probe-${String(process.pid)}.data`);
  const probe = spawnSync('perf', ['record', '-q', '-o', file, '--', 'true'], {
    encoding: 'utf8',
  });
  rmSync(file, { force: true });
  if (probe.error !== undefined) return `perf: ${probe.error.message}`;
  if (probe.status !== 0)
    return `perf: ${probe.stderr.trim().split('\n')[0] || `exited with ${String(probe.status)}`}`;
  return undefined;
}

export interface PerfRecording {
  /** Stops recording and reads the samples of the named processes (pid → name). */
  stop(names: ReadonlyMap<number, string>): Promise<PerfProfile>;
}

/** `perf record` of the processes' every thread, stamped on the clock of `profileClockUs`. */
export function startPerfRecord(pids: readonly number[], file: string): PerfRecording {
  mkdirSync(dirname(file), { recursive: true });
  const args = ['-q', '-g', '-k', 'mono', '-F', String(PERF_FREQUENCY_HZ), '-o', file];
  const perf = spawn('perf', ['record', ...args, '-p', pids.join(',')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  perf.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => {
    perf.on('error', (error) => {
      stderr += error.message;
      resolve(null);
    });
    // perf stops on SIGINT as asked, writing the file, and exits by that signal.
    perf.on('exit', (code, signal) => {
      resolve(signal === 'SIGINT' ? 0 : code);
    });
  });
  return {
    async stop(names) {
      if (perf.exitCode === null && perf.signalCode === null) perf.kill('SIGINT');
      const code = await exited;
      if (code !== 0) throw new Error(stderr.trim() || `perf record exited with ${String(code)}`);
      const profile = await readPerfScript(file, names);
      for (const pid of names.keys()) removeFilesOf(pid);
      return profile;
    },
  };
}

/**
 * What `--perf-basic-prof` left of a process once its samples are read: its map file, and the log
 * V8 writes beside it into the working directory (`isolate-<address>-<pid>-v8.log`), which
 * `NODE_OPTIONS` may not redirect (`--logfile` is not allowed there).
 */
function removeFilesOf(pid: number): void {
  rmSync(`/tmp/perf-${String(pid)}.map`, { force: true });
  for (const file of readdirSync(process.cwd()))
    if (file.startsWith('isolate-') && file.endsWith(`-${String(pid)}-v8.log`))
      rmSync(join(process.cwd(), file), { force: true });
}

/** The samples in a `perf record` file, read with `perf script`, which finds Node's map files. */
async function readPerfScript(
  file: string,
  names: ReadonlyMap<number, string>,
): Promise<PerfProfile> {
  const script = spawn('perf', ['script', '-i', file, '-F', 'pid,tid,time,ip,sym,dso'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // Settled, not rejected: a failure to start it comes while its output is still being read.
  const exited = new Promise<string | undefined>((resolve) => {
    script.on('error', (error) => {
      resolve(error.message);
    });
    script.on('exit', (code) => {
      resolve(code === 0 ? undefined : `exited with ${String(code)}`);
    });
  });
  const profile = await parsePerfScript(
    createInterface({ input: script.stdout, crlfDelay: Infinity }),
    names,
    file,
  );
  const failed = await exited;
  if (failed !== undefined) throw new Error(`perf script -i ${file}: ${failed}`);
  return profile;
}
