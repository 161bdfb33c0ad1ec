import type { ServerProcess } from '#local/process/server-process.ts';
import type { BenchRun } from '../bench-run.ts';
import { loadPlants, tickLine, type LoadResult } from './load.ts';
import { rssKiB, toMiB } from '../probes/process-stats.ts';
import type { SoakResult } from '../report/results.ts';

/** The e2e services under 80 % of their measured peak for --soak seconds: does their RSS grow? */
export async function soakAt80Percent(
  { options, token, progress }: BenchRun,
  urls: readonly string[],
  services: readonly ServerProcess[],
  peak: LoadResult,
  firstId: bigint,
): Promise<SoakResult> {
  const { soakSeconds, connections } = options;
  const rate = Math.round(peak.requestsPerSecond * 0.8);
  console.log(`soak: ${rate} req/s for ${soakSeconds} s…`);
  const startedAt = Date.now();
  const rssMiB = () => services.map(({ pid }) => toMiB(rssKiB(pid)));
  const samples = [{ second: 0, rssMiB: rssMiB() }];
  const sampler = setInterval(() => {
    samples.push({ second: Math.round((Date.now() - startedAt) / 1000), rssMiB: rssMiB() });
  }, 10_000);
  const load = await loadPlants(
    { urls, token, connections, duration: soakSeconds, overallRate: rate, firstId },
    (tick) => {
      progress.update(tickLine('soak', soakSeconds, tick));
    },
  );
  progress.end();
  clearInterval(sampler);
  samples.push({ second: soakSeconds, rssMiB: rssMiB() });
  return {
    seconds: soakSeconds,
    rate,
    load,
    processes: services.map(({ name }) => name),
    samples,
  };
}
