import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { onTestFinished } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { freePort } from '#local/provision/ports.ts';
import { watchOutput, type ChildOutput } from '../processes/child-output.ts';

/** Whether any process has this pid, a zombie included: the tests' check that nothing is left. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface InfraRun extends ChildOutput {
  readonly child: ChildProcess;
}

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

/** Runs `npm run infra`'s entry point (of the clone in `root`) as a child process, as a user would. */
export function runInfra(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  root = projectRoot,
): InfraRun {
  const child = spawn(process.execPath, [join(root, 'deploy', 'local', 'infra.ts'), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

/** Kafka and FerretDB, and PostgreSQL when it is FerretDB's backend (the default where present). */
export function serversStarted(output: string): number {
  return output.includes('on PostgreSQL)') ? 3 : 2;
}

export async function listTopics(brokers: string): Promise<string[]> {
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}
