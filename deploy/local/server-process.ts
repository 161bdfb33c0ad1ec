import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { forgetServer, reapOrphans, rememberServer } from './orphans.ts';

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

export function startServerProcess(options: ServerProcessOptions): ServerProcess {
  reapOrphans();
  mkdirSync(dirname(options.logFile), { recursive: true });
  const log = openSync(options.logFile, 'a');
  const child = spawn(options.command, options.args, {
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
  rememberServer(pid, options.args);

  let alive = true;
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => {
      alive = false;
      running.delete(child);
      forgetServer(pid);
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
