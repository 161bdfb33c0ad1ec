import { readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

export interface ProcessUsage {
  name: string;
  /** The largest resident set seen while sampling, in MiB. */
  maxRssMiB: number;
  /** User + system CPU time spent between start() and stop(). */
  cpuSeconds: number;
}

/** Samples the RSS and CPU time of processes from Linux /proc while a measurement runs. */
export function sampleProcesses(processes: readonly { name: string; pid: number }[]) {
  const startCpu = new Map(processes.map(({ pid }) => [pid, cpuTicks(pid)]));
  const maxRss = new Map(processes.map(({ pid }) => [pid, rssKiB(pid)]));
  const timer = setInterval(() => {
    for (const { pid } of processes) maxRss.set(pid, Math.max(maxRss.get(pid) ?? 0, rssKiB(pid)));
  }, 250);
  return {
    stop(): ProcessUsage[] {
      clearInterval(timer);
      return processes.map(({ name, pid }) => ({
        name,
        maxRssMiB: Math.round((Math.max(maxRss.get(pid) ?? 0, rssKiB(pid)) / 1024) * 10) / 10,
        cpuSeconds: (cpuTicks(pid) - (startCpu.get(pid) ?? 0)) / CLOCK_TICKS_PER_SECOND,
      }));
    },
  };
}

function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

export function rssKiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
