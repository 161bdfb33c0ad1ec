import type { ServerProcess } from '#local/process/server-process.ts';
import type { LinkFaults } from '#local/faults/gray-links.ts';
import { FAULTED_GATEWAY, FAULTED_WRITER } from './gray-targets.ts';
import type { GrayLinks } from './process-links.ts';
import type { ScenarioContext } from './scenarios.ts';
import type { GrayScenario } from './targets.ts';

/** Every gray scenario runs three writers (one can be cut off) and two gateways. */
export const GRAY_WRITERS = ['writer-1', 'writer-2', 'writer-3'] as const;
export const GRAY_GATEWAYS = ['gateway-1', 'gateway-2'] as const;

/** How long each fault lasts (issue 29's table). */
const FAULT_MS = 60_000;
const SLOWER_MS = 30_000;
const FROZEN_MS = 30_000;

type GrayContext = ScenarioContext & { links: GrayLinks };

export const GRAY_STEPS: Record<GrayScenario, (context: GrayContext) => Promise<void>> = {
  async 'store-cut-one'({ links, change }) {
    const store = links.store(FAULTED_WRITER);
    await change(`black-hole ${FAULTED_WRITER}'s path to the store`, () => store.blackHole());
    await change(`heal ${FAULTED_WRITER}'s path`, () => store.heal(), FAULT_MS);
  },

  async 'store-down-all'({ links, change }) {
    const stores = GRAY_WRITERS.map((name) => links.store(name));
    await change('black-hole every writer’s path to the store', () =>
      each(stores, (store) => store.blackHole()),
    );
    await change('heal every path', () => each(stores, (store) => store.heal()), FAULT_MS);
  },

  async 'store-slow'({ links, change }) {
    const stores = GRAY_WRITERS.map((name) => links.store(name));
    const latency = (ms: number) => ({ latency: ms });
    await change('1 s each way on every store connection', () =>
      each(stores, async (store) => {
        for (const stream of ['upstream', 'downstream'] as const)
          await store.add({
            type: 'latency',
            name: `slow_${stream}`,
            stream,
            attributes: latency(1_000),
          });
      }),
    );
    await change(
      '3 s each way on every store connection',
      () =>
        each(stores, async (store) => {
          for (const stream of ['upstream', 'downstream'])
            await store.update(`slow_${stream}`, { attributes: latency(3_000) });
        }),
      FAULT_MS,
    );
    await change('heal every path', () => each(stores, (store) => store.heal()), SLOWER_MS);
  },

  async 'store-half-open'({ links, change }) {
    const stores = GRAY_WRITERS.map((name) => links.store(name));
    await change('30 % of store connections stall (no answer, no reset)', () =>
      each(stores, async (store) => {
        await store.add({
          type: 'timeout',
          stream: 'downstream',
          toxicity: 0.3,
          attributes: { timeout: 0 },
        });
      }),
    );
    await change('heal every path', () => each(stores, (store) => store.heal()), FAULT_MS);
  },

  async 'broker-blackhole-gateway'({ links, change }) {
    const kafka = links.kafka(FAULTED_GATEWAY);
    await change(`black-hole ${FAULTED_GATEWAY}'s path to Kafka`, () => kafka.blackHole());
    await change(`heal ${FAULTED_GATEWAY}'s path`, () => kafka.heal(), FAULT_MS);
  },

  async 'writer-frozen'({ fleet, change }) {
    const writer = fleet.writers.find(({ name }) => name === FAULTED_WRITER);
    if (writer === undefined) throw new Error(`no ${FAULTED_WRITER} to freeze`);
    await change(`SIGSTOP ${FAULTED_WRITER}`, () => signal(writer, 'SIGSTOP'));
    await change(`SIGCONT ${FAULTED_WRITER}`, () => signal(writer, 'SIGCONT'), FROZEN_MS);
  },

  async 'reply-slow'({ links, change }) {
    const kafka = links.kafka(FAULTED_GATEWAY);
    await change(`3 s on ${FAULTED_GATEWAY}'s replies (Kafka → gateway)`, async () => {
      await kafka.add({ type: 'latency', stream: 'downstream', attributes: { latency: 3_000 } });
    });
    await change(`heal ${FAULTED_GATEWAY}'s path`, () => kafka.heal(), FAULT_MS);
  },
};

function signal(process: ServerProcess, name: NodeJS.Signals): Promise<void> {
  process.kill(name);
  return Promise.resolve();
}

async function each(links: readonly LinkFaults[], act: (link: LinkFaults) => Promise<void>) {
  await Promise.all(links.map(act));
}
