import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { projectRoot } from '../../deploy/local/paths.ts';
import { freePort } from '../../deploy/local/ports.ts';
import { watchOutput, type ChildOutput } from './child-output.ts';

export interface InfraRun extends ChildOutput {
  readonly child: ChildProcess;
}

/** Runs `npm run infra`'s entry point as a child process, as a user would. */
/** `npm run infra` arguments for a stack in `dir` on free ports of its own. */
export async function portArgs(dir: string): Promise<string[]> {
  return [
    '--dir',
    dir,
    '--kafka-port',
    String(await freePort()),
    '--kafka-controller-port',
    String(await freePort()),
    '--mongodb-port',
    String(await freePort()),
  ];
}

export function runInfra(args: readonly string[], env: NodeJS.ProcessEnv = process.env): InfraRun {
  const child = spawn(
    process.execPath,
    [join(projectRoot, 'deploy', 'local', 'infra.ts'), ...args],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  return { child, ...watchOutput(child, 'infra') };
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

/** Every process below `root`: its children, theirs, and so on. */
export function descendantPids(root: number): number[] {
  return childPids(root).flatMap((child) => [child, ...descendantPids(child)]);
}
