import { setTimeout as sleep } from 'node:timers/promises';
import { progressLine, type ProgressLine } from '#tooling/progress/progress-line.ts';
import { showChaosProgress } from './observe/progress.ts';
import { startScraping } from './observe/scrape.ts';
import { startTraffic, type Traffic, type TrafficOptions } from './observe/traffic.ts';
import type { ChaosOptions } from './options.ts';
import type { Change } from './report/figures.ts';
import { readByTheRules } from './report/rule-test.ts';
import type { ChangingScenario, ScenarioContext } from './scenarios/scenario.ts';
import type { ScenarioServices, ScenarioStack } from './stack/scenario-stack.ts';

/** Gray scenarios: time after the heal for the processes to be back (their targets read it). */
const AFTER_HEAL_MS = 30_000;

export type ScenarioOptions = ChaosOptions & { scenario: ChangingScenario };

/** The services under load, what watches them, and the changes made so far. */
export interface UnderLoad extends ScenarioServices {
  trafficOptions: TrafficOptions;
  traffic: Traffic;
  scraping: ReturnType<typeof startScraping> | undefined;
  progress: ProgressLine;
  stopProgress: () => void;
  loadStartedAt: number;
  changes: Change[];
}

/** The clients' load on the fleet, the scraping of its metrics, and the progress line. */
export function startScenarioLoad(
  { scenario, connections, faultEveryMs }: ScenarioOptions,
  { token, hangAfterMs }: { token: string; hangAfterMs: number },
  services: ScenarioServices,
): UnderLoad {
  const { fleet, scraped } = services;
  const trafficOptions = {
    urls: fleet.urls,
    token,
    connections,
    firstId: 9_007_199_254_740_993n,
    hangAfterMs,
  };
  const scraping =
    scraped === undefined
      ? undefined
      : startScraping(() => [...fleet.urls, ...scraped.urls], readByTheRules());
  const traffic = startTraffic(trafficOptions);
  const loadStartedAt = Date.now();
  console.log(
    `chaos: ${String(connections)} clients on ${fleet.urls.join(', ')}; a change every ${String(faultEveryMs / 1_000)} s`,
  );

  const changes: Change[] = [];
  const progress = progressLine();
  const stopProgress = showChaosProgress(progress, traffic.answers, {
    startedAt: loadStartedAt,
    phase: () => `${scenario.name}, after "${changes.at(-1)?.name ?? 'the load started'}"`,
  });
  return {
    ...services,
    trafficOptions,
    traffic,
    scraping,
    progress,
    stopProgress,
    loadStartedAt,
    changes,
  };
}

/** The scenario's changes, each recorded in `run.changes`; resolves with what they changed. */
export async function makeChanges(
  { scenario, faultEveryMs }: ScenarioOptions,
  { stack, links, tmpfs }: ScenarioStack,
  run: UnderLoad,
): Promise<ScenarioContext> {
  const { fleet, facts, progress, loadStartedAt, changes } = run;
  const context = {
    stack,
    fleet,
    facts,
    ...(tmpfs === undefined ? {} : { tmpfs }),
    killedPartitions: new Map<string, readonly number[]>(),
    killedGateways: new Map<string, string>(),
    async change(name: string, act: () => Promise<void>, afterMs = faultEveryMs) {
      await sleep(afterMs);
      const at = Date.now();
      progress.log(`chaos: +${((at - loadStartedAt) / 1_000).toFixed(1)} s ${name}`);
      await act();
      changes.push({ name, at, doneAt: Date.now() });
    },
  };
  try {
    if (!scenario.gray) await scenario.steps(context);
    else if (links === undefined)
      throw new Error(`${scenario.name} needs the processes' gray links`);
    else await scenario.steps({ ...context, links });
  } catch (error) {
    // A fault that did not take ends the run here; the load and the services end with it.
    await stopLoad(run);
    await stopWatching(run);
    await Promise.all(fleet.all().map((service) => service.stop()));
    throw error;
  }
  return context;
}

/**
 * Lets the last change play out and the load reach `minCreates`, then stops the load and what
 * watched it; resolves with when the load ended.
 */
export async function endLoad(
  { scenario, minCreates, faultEveryMs }: ScenarioOptions,
  run: UnderLoad,
): Promise<number> {
  await sleep(scenario.gray ? AFTER_HEAL_MS : faultEveryMs);
  while (run.traffic.answers.length < minCreates) {
    run.progress.log(`chaos: ${String(run.traffic.answers.length)} creates so far…`);
    await sleep(5_000);
  }
  await stopLoad(run);
  const loadEndedAt = Date.now();
  await stopWatching(run);
  return loadEndedAt;
}

async function stopLoad({ traffic, stopProgress }: UnderLoad): Promise<void> {
  await traffic.stop();
  stopProgress();
}

async function stopWatching({ probe, scraping }: UnderLoad): Promise<void> {
  await probe?.stop();
  await scraping?.stop();
}
