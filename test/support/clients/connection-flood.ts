import { fork } from 'node:child_process';
import { once } from 'node:events';
import { constants, setPriority } from 'node:os';
import { onTestFinished } from 'vitest';

/** What a flood sends on each of its connections, opened again as soon as the server closes one. */
export type FloodPlan = { port: number; connections: number } & (
  | { kind: 'idle' }
  | { kind: 'slow-bodies'; token: string; bodyBytes: number; chunkBytes: number; everyMs: number }
  | { kind: 'wrong-tokens' }
);

export interface FloodCounts {
  opened: number;
  closed: number;
  /** Closed by the server without a byte of answer: refused at the cap, or shed. */
  closedUnanswered: number;
  /** Answers by status. */
  answered: Record<string, number>;
}

export interface Flood {
  /** Stops the flood's process where it is (SIGSTOP), its connections left open. */
  pause(): void;
  resume(): void;
  stop(): Promise<FloodCounts>;
}

/**
 * Starts a flood in a process of its own (`flood-process.ts`), stopped when the test ends at the
 * latest. `wrong-tokens` sends creates with a token nobody configured, as fast as autocannon can
 * on `connections` connections.
 */
export async function startFlood(plan: FloodPlan): Promise<Flood> {
  const child = fork(new URL('./flood-process.ts', import.meta.url), [JSON.stringify(plan)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  // The lowest CPU priority: a flood that spins on two cores would otherwise starve the services
  // and the test's own client, and a test would measure the scheduler, not the bounds. It still
  // takes every cycle nobody else wants.
  if (child.pid !== undefined) setPriority(child.pid, constants.priority.PRIORITY_LOW);
  const [started] = (await once(child, 'message')) as [unknown];
  if (started !== 'started') throw new Error(`the flood did not start: ${String(started)}`);
  return {
    pause() {
      child.kill('SIGSTOP');
    },
    resume() {
      child.kill('SIGCONT');
    },
    async stop() {
      child.kill('SIGCONT');
      const counts = once(child, 'message') as Promise<[FloodCounts]>;
      const exited = once(child, 'exit');
      child.send('stop');
      const [result] = await counts;
      await exited;
      return result;
    },
  };
}
