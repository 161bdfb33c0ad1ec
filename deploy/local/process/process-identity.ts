import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A process as the kernel knows it: its pid and when it started, in clock ticks since boot. */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startTime: number;
}

/**
 * The identity of a running process, or null when it is gone, a zombie whose threads have all
 * exited, or not on Linux. A process's first thread turns zombie while the others may still be
 * exiting and holding its files: a JVM killed while stopped (SIGSTOP) kept its port for a moment
 * after, and a start that took it for gone found the port in use.
 */
export function processIdentity(pid: number): ProcessIdentity | null {
  const stat = procText(`/proc/${String(pid)}/stat`);
  // The command name in parentheses may hold spaces; the state is the field after it, the start
  // time the 20th after that.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const startTime = Number(fields[19]);
  if (fields[0] === undefined || !Number.isInteger(startTime)) return null;
  if (fields[0] === 'Z' && threads(pid) <= 1) return null;
  return { pid, startTime };
}

/**
 * The kernel's one-letter state of the process (`R` running, `S` sleeping, `T` stopped by a
 * signal, `Z` zombie…), or null when it is gone.
 */
export function processState(pid: number): string | null {
  const stat = procText(`/proc/${String(pid)}/stat`);
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] || null;
}

function threads(pid: number): number {
  try {
    return readdirSync(`/proc/${String(pid)}/task`).length;
  } catch {
    return 0;
  }
}

/** Whether the process still runs: a pid the system has given to another process since does not. */
export function isRunning(candidate: ProcessIdentity): boolean {
  return processIdentity(candidate.pid)?.startTime === candidate.startTime;
}

/** Where a pid and a start time name one process: this boot, this pid namespace. */
export function pidScope(): { boot: string; namespace: string } {
  return {
    boot: procText('/proc/sys/kernel/random/boot_id') || 'unknown',
    namespace: /\d+/.exec(procLink('/proc/self/ns/pid'))?.[0] ?? 'unknown',
  };
}

function procText(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function procLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
