import { describe, expect, it, onTestFinished } from 'vitest';
import { activeController } from '#chaos/observe/timeline.ts';
import { attachGateway } from '../support/servers/gateway.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { ownKafkaCluster } from '../support/servers/own-kafka.ts';
import { aPlant } from '../support/clients/plants.ts';
import { startTestWriter } from '../support/servers/writer.ts';

describe.skipIf(localServersUnavailable)(
  'A gateway on a cluster of three brokers',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it("When the broker leading a command partition shuts down and its leadership moves to another, then the gateway's producer follows it and every create is answered 200", async () => {
      const { cluster, leaders, createAll } = await gatewayOnThreeBrokers();

      const before = await leaders();
      expect(failed(await createAll(30))).toEqual([]);
      const moved = before.get(0) ?? -1;
      await cluster.nodes.get(moved)?.stop();
      const after = await leaders();
      const creates = await createAll(60);

      expect(moved).toBeGreaterThan(0);
      expect([...after.values()]).not.toContain(moved);
      expect(after.size).toBe(before.size);
      expect(failed(creates)).toEqual([]);
    });

    it("When the broker leading a command partition dies (SIGKILL) while creates arrive, then the gateway's sends wait for the next leader: every create is answered 200, none 503", async () => {
      const { cluster, leaders, createAll } = await gatewayOnThreeBrokers();
      // Not the active controller: its death would add a controller election to the wait.
      const controller = activeController(cluster.logFiles);
      const victim = [...(await leaders()).values()].find((leader) => leader !== controller) ?? -1;
      expect(failed(await createAll(30))).toEqual([]);

      const node = cluster.nodes.get(victim);
      node?.kill('SIGKILL');
      const creates: unknown[][] = [];
      const killedAt = Date.now();
      while (Date.now() - killedAt < 6_000) creates.push(...(await createAll(8)));
      await node?.exited;

      expect(victim).toBeGreaterThan(0);
      expect([...(await leaders()).values()]).not.toContain(victim);
      expect(failed(creates)).toEqual([]);
    });
  },
);

/** Three brokers, a writer and a gateway of this test's own. */
async function gatewayOnThreeBrokers() {
  const cluster = await ownKafkaCluster(3);
  const harness = await startTestWriter({ brokers: cluster.brokers });
  const { post } = await attachGateway(harness);
  const admin = harness.kafka.admin();
  await admin.connect();
  onTestFinished(() => admin.disconnect());
  /** The leader of each command partition. */
  const leaders = async () => {
    const [topic] = (await admin.fetchTopicMetadata({ topics: [harness.topics.create] })).topics;
    return new Map(
      (topic?.partitions ?? []).map(({ partitionId, leader }) => [partitionId, leader]),
    );
  };
  /** Creates `count` new plants at once: [status, body, the plant a 200 must carry] of each. */
  const createAll = async (count: number) => {
    const plants = Array.from({ length: count }, () => aPlant());
    const answers = await Promise.all(plants.map((plant) => post(plant.body)));
    return answers.map((answer, index): unknown[] => [
      answer.statusCode,
      answer.json<unknown>(),
      plants[index]?.answer,
    ]);
  };
  return { cluster, leaders, createAll };
}

/** The answers other than 200 with the plant created. */
function failed(answers: unknown[][]): unknown[][] {
  return answers.filter(([status, body, wanted]) => status !== 200 || !isEqual(body, wanted));
}

function isEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
