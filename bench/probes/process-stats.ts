import { readdirSync, readFileSync } from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100;

export interface SampledProcess {
  name: string;
  pid: number;
  /**
   * Count its child processes too (PostgreSQL forks one backend per connection): CPU summed, and
   * memory as the sum of their proportional set sizes, so what they share is counted once.
   */
  withChildren?: boolean;
}

export interface ProcessUsage {
  name: string;
  /** The largest resident set seen while sampling, in MiB. */
  maxRssMiB: number;
  /** User + system CPU time spent between start() and stop(). */
  cpuSeconds: number;
}

/** Samples the RSS and CPU time of processes from Linux /proc while a measurement runs. */
export function sampleProcesses(processes: readonly SampledProcess[]) {
  const pidsOf = ({ pid, withChildren }: SampledProcess) =>
    withChildren === true ? [pid, ...childrenOf(pid)] : [pid];
  const cpu = (sampled: SampledProcess) =>
    sampled.withChildren === true
      ? pidsOf(sampled).reduce((sum, pid) => sum + cpuTicks(pid), reapedChildrenTicks(sampled.pid))
      : cpuTicks(sampled.pid);
  const rss = (sampled: SampledProcess) =>
    sampled.withChildren === true
      ? pidsOf(sampled).reduce((sum, pid) => sum + pssKiB(pid), 0)
      : rssKiB(sampled.pid);
  const startCpu = processes.map(cpu);
  const maxRss = processes.map(rss);
  // Every 2 s: reading a process tree's PSS walks the page tables of every PostgreSQL backend,
  // which cost the benchmark's process (on the cores the services use) more as the backends
  // touched more shared memory: at 4 reads a second its CPU per request doubled over a run.
  const timer = setInterval(() => {
    processes.forEach((sampled, index) => {
      maxRss[index] = Math.max(maxRss[index] ?? 0, rss(sampled));
    });
  }, 2_000);
  return {
    stop(): ProcessUsage[] {
      clearInterval(timer);
      return processes.map((sampled, index) => ({
        name: sampled.name,
        maxRssMiB: toMiB(Math.max(maxRss[index] ?? 0, rss(sampled))),
        cpuSeconds: (cpu(sampled) - (startCpu[index] ?? 0)) / CLOCK_TICKS_PER_SECOND,
      }));
    },
  };
}

/** Fields of /proc/<pid>/stat after the command name: state is [0], ppid [1], utime [11]. */
function statFields(pid: number): string[] {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return [];
  }
}

function cpuTicks(pid: number): number {
  const fields = statFields(pid);
  return Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
}

/** CPU of children that have exited and been waited for. */
function reapedChildrenTicks(pid: number): number {
  const fields = statFields(pid);
  return Number(fields[13] ?? 0) + Number(fields[14] ?? 0);
}

/** CPU seconds of the children of `pid` that have exited and been waited for. */
export function reapedChildrenCpuSeconds(pid: number): number {
  return reapedChildrenTicks(pid) / CLOCK_TICKS_PER_SECOND;
}

function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => Number(statFields(pid)[1]) === parent);
}

/** KiB to MiB, to one decimal. */
export function toMiB(kib: number): number {
  return Math.round(kib / 102.4) / 10;
}

export function rssKiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function pssKiB(pid: number): number {
  try {
    return Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export interface MachineUsage {
  /** Shares of all CPUs' time over the window, in %: busy (neither idle nor iowait), waiting for
   * I/O, and stolen by the hypervisor. */
  busyPercent: number;
  iowaitPercent: number;
  stealPercent: number;
  /** CPU of the benchmark's own process: autocannon generating the load. */
  loadGeneratorCpuSeconds: number;
}

/** The `cpu` line of /proc/stat: user nice system idle iowait irq softirq steal, in ticks. */
function machineTicks(): number[] {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  return line.trim().split(/\s+/).slice(1, 9).map(Number);
}

/** What the whole machine did while a measurement ran, from /proc/stat. */
export function sampleMachine() {
  const start = machineTicks();
  const startCpu = process.cpuUsage();
  return {
    stop(): MachineUsage {
      const delta = machineTicks().map((ticks, index) => ticks - (start[index] ?? 0));
      const total = delta.reduce((sum, ticks) => sum + ticks, 0) || 1;
      const [, , , idle = 0, iowait = 0, , , steal = 0] = delta;
      const percent = (ticks: number) => Math.round((ticks / total) * 1000) / 10;
      const { user, system } = process.cpuUsage(startCpu);
      return {
        busyPercent: percent(total - idle - iowait - steal),
        iowaitPercent: percent(iowait),
        stealPercent: percent(steal),
        loadGeneratorCpuSeconds: Math.round((user + system) / 1e5) / 10,
      };
    },
  };
}
