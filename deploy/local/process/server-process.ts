import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { forgetServer, killOrphans, recordServer, registryDir } from './orphans.ts';
import { processIdentity } from './process-identity.ts';
import { findOnPath } from '../provision/tools.ts';

export interface ServerProcessOptions {
  name: string;
  command: string;
  args: readonly string[];
  /** stdout and stderr of the server are appended here. */
  logFile: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** How long SIGTERM may take before SIGKILL. */
  stopTimeoutMs?: number;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Settles when the process has exited, for whatever reason. */
  readonly exited: Promise<ExitStatus>;
  isRunning(): boolean;
  /** Sends a signal without waiting (SIGKILL in fault drills). */
  kill(signal: NodeJS.Signals): void;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

// Last resort when the owner exits without stopping its servers (an uncaught error, or
// process.exit() from a test runner): never leave a JVM behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const SETPRIV = findOnPath('setpriv');

/**
 * The command that runs the server with SIGTERM due when its owner dies, however it dies
 * (PR_SET_PDEATHSIG, set by util-linux's setpriv, which then execs the server: same pid, same
 * start time). The signal is due when the owner's thread that spawned it ends: servers are
 * started from a main thread, never from a worker thread. A command that is setpriv already gets
 * the option in the same call: a later change of user (PostgreSQL under root) would clear it.
 */
function terminatedWithOwner(command: string, args: readonly string[]): [string, string[]] {
  const option = ['--pdeathsig', 'TERM'];
  if (SETPRIV === null) return [command, [...args]];
  if (basename(command) === 'setpriv') return [command, [...option, ...args]];
  return [SETPRIV, [...option, '--', command, ...args]];
}

export function startServerProcess(options: ServerProcessOptions): ServerProcess {
  const registry = registryDir();
  killOrphans(registry);
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = openSync(options.logFile, 'a');
  const child = spawn(...terminatedWithOwner(options.command, options.args), {
    env: options.env ?? process.env,
    cwd: options.cwd,
    stdio: ['ignore', log, log],
    // Its own process group: Ctrl-C in a terminal reaches only the owner, which then stops the
    // servers in order instead of racing them.
    detached: true,
  });
  closeSync(log);
  const { pid } = child;
  if (pid === undefined) throw new Error(`${options.name} could not be started`);
  running.add(child);
  // Read before anything awaits: until this process reaps the child, its pid stays the child's.
  const identity = processIdentity(pid);
  if (identity !== null)
    recordServer(registry, identity, {
      name: options.name,
      command: [options.command, ...options.args],
    });

  let alive = true;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      alive = false;
      running.delete(child);
      if (identity !== null) forgetServer(registry, identity);
      resolve({ code, signal });
    });
  });

  return {
    name: options.name,
    pid,
    logFile: options.logFile,
    exited,
    isRunning: () => alive,
    kill(signal) {
      if (alive) child.kill(signal);
    },
    async stop() {
      if (!alive) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.stopTimeoutMs ?? 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
