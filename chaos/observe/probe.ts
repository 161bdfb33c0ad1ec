import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerProcess } from '#local/process/server-process.ts';
import type { GroupState } from '../stack/cluster.ts';

/** One process as the run's probe saw it. */
export interface ProcessSample {
  running: boolean;
  /** Its `/readyz`: 2xx, another status, or none within the probe's wait (a frozen process). */
  ready: 'ready' | 'not ready' | 'no answer';
  /** VmRSS, while it runs. */
  rssKb?: number;
}

/** What the probe saw at one moment: every process, the writers' group, its committed offsets. */
export interface Sample {
  at: number;
  processes: Record<string, ProcessSample>;
  group?: { stable: boolean; members: number };
  /** The writers' committed offset of each command partition. */
  committed?: Record<number, string>;
}

export interface ProbeOptions {
  /** Each process under load and where it answers `/readyz`. */
  processes: readonly { process: ServerProcess; readyUrl: string }[];
  group: () => Promise<GroupState>;
  committed: () => Promise<Record<number, string>>;
}

const EVERY_MS = 1_000;
/** A frozen process never answers: its readiness is "no answer" after this long. */
const READY_WAIT_MS = 1_000;

/**
 * Samples every second what an operator's probes and dashboards would show: each process's
 * readiness, RSS and whether it runs, and the writers' group with its committed offsets.
 */
export function startProbe(options: ProbeOptions): { samples: Sample[]; stop(): Promise<void> } {
  const samples: Sample[] = [];
  const stopped = new AbortController();
  const loop = (async () => {
    while (!stopped.signal.aborted) {
      const at = Date.now();
      const [processes, group, committed] = await Promise.all([
        Promise.all(
          options.processes.map(async (each) => [each.process.name, await sampleOf(each)] as const),
        ),
        options.group().then(
          ({ stable, members }) => ({ stable, members: members.size }),
          () => undefined,
        ),
        options.committed().catch(() => undefined),
      ]);
      samples.push({
        at,
        processes: Object.fromEntries(processes),
        ...(group === undefined ? {} : { group }),
        ...(committed === undefined ? {} : { committed }),
      });
      await sleep(Math.max(0, at + EVERY_MS - Date.now()));
    }
  })();
  return {
    samples,
    async stop() {
      stopped.abort();
      await loop;
    },
  };
}

async function sampleOf({
  process,
  readyUrl,
}: ProbeOptions['processes'][number]): Promise<ProcessSample> {
  if (!process.isRunning()) return { running: false, ready: 'no answer' };
  const rssKb = vmRssKb(process.pid);
  const ready = await fetch(`${readyUrl}/readyz`, {
    signal: AbortSignal.timeout(READY_WAIT_MS),
  }).then(
    (response): ProcessSample['ready'] => (response.ok ? 'ready' : 'not ready'),
    (): ProcessSample['ready'] => 'no answer',
  );
  return { running: true, ready, ...(rssKb === undefined ? {} : { rssKb }) };
}

function vmRssKb(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}
