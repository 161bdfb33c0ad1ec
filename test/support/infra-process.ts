import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { projectRoot } from '../../deploy/local/paths.ts';

export interface InfraRun {
  readonly child: ChildProcess;
  /** Everything printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves once `text` was printed; rejects if the process exits first. */
  printed(text: string): Promise<void>;
  exitCode: Promise<number | null>;
}

/** Runs `npm run infra`'s entry point as a child process, as a user would. */
export function runInfra(args: readonly string[], env: NodeJS.ProcessEnv = process.env): InfraRun {
  const child = spawn(
    process.execPath,
    [join(projectRoot, 'deploy', 'local', 'infra.ts'), ...args],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const waiters = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exitCode = new Promise<number | null>((resolve) => child.once('exit', resolve));
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  return {
    child,
    output: () => output,
    exitCode,
    printed: (text) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (output.includes(text)) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        check();
        void exitCode.then(() => {
          reject(new Error(`infra exited before printing "${text}":\n${output}`));
        });
      }),
  };
}

/** The pids of a process's direct children (Linux /proc). */
export function childPids(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);
}
