import type { LocalStack } from '#local/stack.ts';
import { TOPICS } from '#shared/contracts/kafka.ts';
import type { clusterFacts } from './cluster.ts';
import type { ServiceFleet } from './fleet.ts';
import { GRAY_STEPS, GRAY_WRITERS } from './gray-scenarios.ts';
import type { GrayLinks } from './process-links.ts';
import { isGray, type Scenario } from './targets.ts';
import { activeController } from './timeline.ts';

export interface ScenarioContext {
  stack: LocalStack;
  fleet: ServiceFleet;
  facts: ReturnType<typeof clusterFacts>;
  /**
   * Waits `afterMs` (the time between changes when not given), then makes one and records when it
   * started and ended.
   */
  change: (name: string, act: () => Promise<void>, afterMs?: number) => Promise<void>;
  /** Each process's own path through toxiproxy: gray scenarios only. */
  links?: GrayLinks | undefined;
  /** Partitions held by the writer each change killed, by the change's name. */
  killedPartitions: Map<string, readonly number[]>;
  /** The URL of the gateway each change killed, by the change's name. */
  killedGateways: Map<string, string>;
}

/** How many writers each scenario starts with. */
export const INITIAL_WRITERS: Record<Scenario, number> = {
  mixed: 3,
  scale: 1,
  rolling: 3,
  broker: 3,
  'writer-kill': 3,
  gateways: 3,
  ...(Object.fromEntries(
    Object.keys(GRAY_STEPS).map((name) => [name, GRAY_WRITERS.length]),
  ) as Record<keyof typeof GRAY_STEPS, number>),
};

/** How many gateways a scenario starts with. */
export function initialGateways(scenario: Scenario): number {
  return scenario === 'gateways' ? 1 : 2;
}

/** Runs the scenario's changes. */
export function runScenario(scenario: Scenario, context: ScenarioContext): Promise<void> {
  if (!isGray(scenario)) return VISIBLE_STEPS[scenario](context);
  const { links } = context;
  if (links === undefined) throw new Error(`${scenario} needs the processes' gray links`);
  return GRAY_STEPS[scenario]({ ...context, links });
}

const VISIBLE_STEPS: Record<
  Exclude<Scenario, keyof typeof GRAY_STEPS>,
  (context: ScenarioContext) => Promise<void>
> = {
  async mixed({ stack, fleet, change }) {
    // Replaced writers join at the end: index 0 is always the oldest one.
    await change('SIGTERM the oldest writer, start a new one', async () => {
      await fleet.replaceWriter(0, 'SIGTERM');
    });
    for (const round of [1, 2, 3]) {
      await change(`SIGKILL the oldest writer (${String(round)}/3), start a new one`, async () => {
        await fleet.replaceWriter(0, 'SIGKILL');
      });
    }
    await change('restart the broker', () => stack.restart('kafka'));
    await change('restart the store', () => stack.restart('mongo'));
  },

  async scale({ fleet, change }) {
    await change('scale writers 1 → 3', () => fleet.startWriters(2));
    await change('scale writers 3 → 1 (SIGTERM)', async () => {
      await fleet.scaleDownWriters(2);
    });
    await change('scale writers 1 → 3', () => fleet.startWriters(2));
  },

  async rolling({ fleet, change }) {
    for (const index of [0, 1]) {
      await change(`replace gateway ${String(index + 1)}`, () => fleet.rollGateway(index));
    }
    for (const round of [1, 2, 3]) {
      await change(`replace the oldest writer (${String(round)}/3)`, () => fleet.rollWriter(0));
    }
  },

  async broker({ stack, facts, change }) {
    const leader = await facts.busiestLeader(TOPICS.create);
    await killAndRestart(stack, change, leader, 'leads the most command partitions');
    const controller = activeController(stack.kafka.logFiles);
    await killAndRestart(stack, change, controller, 'the active controller');
  },

  async gateways({ fleet, change, killedGateways }) {
    await change('scale gateways 1 → 4', () => fleet.startGateways(3));
    const kill = 'SIGKILL gateway 2 of 4 (started again with its ordinal)';
    await change(kill, async () => {
      killedGateways.set(kill, await fleet.killGateway(1));
    });
    await change('scale gateways 4 → 1 (SIGTERM)', () => fleet.scaleDownGateways(3));
  },

  async 'writer-kill'({ fleet, change, killedPartitions }) {
    for (const round of [1, 2, 3]) {
      const name = `SIGKILL the oldest writer (${String(round)}/3), start a new one`;
      await change(name, async () => {
        killedPartitions.set(name, await fleet.replaceWriter(0, 'SIGKILL'));
      });
    }
  },
};

async function killAndRestart(
  stack: LocalStack,
  change: ScenarioContext['change'],
  node: number,
  why: string,
): Promise<void> {
  await change(`SIGKILL Kafka node ${String(node)} (${why})`, async () => {
    const server = stack.kafka.nodes.get(node);
    if (server?.isRunning() !== true) throw new Error(`Kafka node ${String(node)} is not running`);
    server.kill('SIGKILL');
    await server.exited;
  });
  await change(`restart Kafka node ${String(node)}`, () => stack.kafka.startNode(node));
}
