import { freePort } from '#local/provision/ports.ts';
import { serviceConnections } from '#local/secure-stack.ts';
import { startServices } from '#local/services.ts';
import { startLocalStack, type LocalStack } from '#local/stack.ts';
import { TOPICS, WRITER_GROUP } from '#shared/contracts/kafka.ts';
import { startProbe } from '../observe/probe.ts';
import type { ChaosOptions } from '../options.ts';
import { GRAY_GATEWAYS, GRAY_WRITERS } from '../scenarios/gray/steps.ts';
import type { ChangingScenario, VisibleScenario } from '../scenarios/scenario.ts';
import { clusterFacts } from './cluster.ts';
import { dataFolderOf, mountTmpfs, type TmpfsData } from './data-on-tmpfs.ts';
import { serviceFleet, type ServiceFleet } from './fleet.ts';
import { startGrayStack, type GrayLinks } from './process-links.ts';

/** The stack a scenario runs on: gray links for a gray one, a tmpfs for one that asks for it. */
export interface ScenarioStack {
  stack: LocalStack;
  links: GrayLinks | undefined;
  tmpfs: TmpfsData | undefined;
  /** Stops the stack and its links, then unmounts the tmpfs. */
  stop: () => Promise<void>;
}

/** The scenario's stack in `dir`; a tmpfs mounted for it is unmounted if the stack fails to start. */
export async function startScenarioStack(
  dir: string,
  {
    scenario,
    store,
    secure,
    brokers,
  }: Pick<ChaosOptions, 'store' | 'secure' | 'brokers'> & { scenario: ChangingScenario },
): Promise<ScenarioStack> {
  const tmpfs =
    scenario.gray || scenario.tmpfs === undefined
      ? undefined
      : mountTmpfs(dataFolderOf(dir, scenario.tmpfs.folder, store), scenario.tmpfs.sizeMb);
  const { stack, links } = await (
    scenario.gray
      ? startGrayStack({ dir, store, brokers, writers: GRAY_WRITERS, gateways: GRAY_GATEWAYS })
      : startLocalStack({ dir, store, secure, brokers }).then((started) => ({
          stack: started,
          links: undefined,
        }))
  ).catch((error: unknown) => {
    tmpfs?.unmount();
    throw error;
  });
  const stop = async () => {
    await stack.stop();
    await links?.stop();
    tmpfs?.unmount();
  };
  return { stack, links, tmpfs, stop };
}

/** The writers and gateways a scenario starts with, and what watches them from the start. */
export interface ScenarioServices {
  facts: ReturnType<typeof clusterFacts>;
  fleet: ServiceFleet;
  /** What an operator's probes would show (gray scenarios only). */
  probe: ReturnType<typeof startProbe> | undefined;
  /** The writers' metrics, for a scenario whose alerts are tested on what the run scrapes. */
  scraped: MetricsPorts | undefined;
}

/** Starts the scenario's services on its stack, each with what `env` and its own link set. */
export async function startScenarioServices(
  scenario: ChangingScenario,
  { stack, links }: ScenarioStack,
  { env, logDir }: { env: NodeJS.ProcessEnv; logDir: string },
): Promise<ScenarioServices> {
  const facts = clusterFacts(stack.kafka.admin);
  const scraped = scenario.gray ? undefined : await metricsPorts(scenario);
  const ownEnv =
    links === undefined
      ? scraped === undefined
        ? {}
        : { ownEnv: (name: string) => scraped.envOf(name) }
      : { ownEnv: (name: string) => links.envOf(name) };
  const common = { env, connections: await serviceConnections(stack), logDir, ...ownEnv };
  const fleet = serviceFleet(
    await startServices({
      ...common,
      writers: scenario.gray ? GRAY_WRITERS.length : scenario.writers,
      gateways: scenario.gray ? GRAY_GATEWAYS.length : scenario.gateways,
    }),
    { ...common, scenario: scenario.name, writerGroup: facts.group },
  );
  // The gray targets read what operators would see; the other scenarios stay unprobed.
  const probe = links === undefined ? undefined : probeFleet(fleet, links, facts);
  return { facts, fleet, probe, scraped };
}

/** What an operator's probes would show of every writer and gateway, and of the writers' group. */
function probeFleet(fleet: ServiceFleet, links: GrayLinks, facts: ReturnType<typeof clusterFacts>) {
  return startProbe({
    processes: [
      ...fleet.writers.map((process) => ({ process, readyUrl: links.healthUrlOf(process.name) })),
      ...fleet.gateways.map((process, index) => ({ process, readyUrl: fleet.urls[index] ?? '' })),
    ],
    group: () => facts.group(WRITER_GROUP, TOPICS.create),
    committed: () => facts.committed(WRITER_GROUP, TOPICS.create),
  });
}

interface MetricsPorts {
  urls: string[];
  envOf: (name: string) => Record<string, string>;
}

/**
 * A metrics port of each writer a scenario starts, when its alerts are tested on what the run
 * scrapes: the writers' ports are otherwise free ones, named only in their logs.
 */
async function metricsPorts(scenario: VisibleScenario): Promise<MetricsPorts | undefined> {
  if (scenario.alerts === undefined) return undefined;
  const names = Array.from(
    { length: scenario.writers },
    (_, index) => `writer-${String(index + 1)}`,
  );
  const ports = new Map(
    await Promise.all(names.map(async (name) => [name, await freePort()] as const)),
  );
  return {
    urls: [...ports.values()].map((port) => `http://127.0.0.1:${String(port)}`),
    envOf: (name: string): Record<string, string> => {
      const port = ports.get(name);
      return port === undefined ? {} : { METRICS_PORT: String(port) };
    },
  };
}
