import { join } from 'node:path';
import type { Admin } from 'kafkajs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freeNodePorts, provisionKafka, startKafka } from '../../deploy/local/kafka.ts';
import { cacheRoot } from '../../deploy/local/paths.ts';
import { kafkaClient } from '../../shared/kafka-client.ts';
import { createLogger } from '../../shared/logger.ts';
import { partitioner, uniqueName } from '../support/kafka.ts';
import {
  localServersUnavailable,
  OWN_STACK_TIMEOUT_MS,
  temporaryDirectory,
} from '../support/local-servers.ts';

/**
 * Long enough that a consumer which loses its membership cannot be back within the wait below:
 * joining again as a new member waits for the old member's session to end.
 */
const SESSION_TIMEOUT_MS = 30_000;
const CONSUMED_AFTER_KILL_WITHIN_MS = 20_000;
/** The writers' session in the chaos runs: shorter than the loop's silence when a leader dies. */
const SHORT_SESSION_MS = 2_000;

/** The local brokers keep one offsets partition: its leader coordinates every group. */
async function coordinatorNode(admin: Admin): Promise<number> {
  const [offsets] = (await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] })).topics;
  const leader = offsets?.partitions.find(({ partitionId }) => partitionId === 0)?.leader;
  if (leader === undefined) throw new Error('__consumer_offsets has no partition 0');
  return leader;
}

/**
 * A cluster of three nodes of this test's own, with a consumer of the services' client in a group
 * of its own (`sessionTimeout`), a producer and an admin, and a topic of one partition replicated
 * three times, led by `leader` when given.
 */
async function groupOnThreeNodes(
  sessionTimeout: number,
  leader?: (admin: Admin) => Promise<number>,
) {
  const dir = await temporaryDirectory();
  const cluster = await startKafka({
    libsDir: await provisionKafka(cacheRoot(), join(dir, 'provision.log')),
    dir: join(dir, 'kafka'),
    nodes: await freeNodePorts(3),
    logFile: join(dir, 'kafka.log'),
  });
  onTestFinished(() => cluster.stop());
  const kafka = kafkaClient(
    'coordinator-test',
    { brokers: cluster.brokers.split(',') },
    createLogger('coordinator-test', 'silent'),
  );
  const admin = kafka.admin();
  const producer = kafka.producer({ createPartitioner: partitioner });
  const consumer = kafka.consumer({
    groupId: uniqueName('group'),
    sessionTimeout,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 250,
  });
  onTestFinished(async () => {
    await Promise.all([admin.disconnect(), producer.disconnect(), consumer.disconnect()]);
  });
  await Promise.all([admin.connect(), producer.connect(), consumer.connect()]);
  const topic = uniqueName('test');
  const first = leader === undefined ? undefined : await leader(admin);
  const nodes = [...cluster.nodes.keys()];
  await admin.createTopics({
    topics: [
      first === undefined
        ? { topic, numPartitions: 1, replicationFactor: 3 }
        : {
            topic,
            replicaAssignment: [
              { partition: 0, replicas: [first, ...nodes.filter((node) => node !== first)] },
            ],
          },
    ],
    waitForLeaders: true,
  });
  return { cluster, admin, producer, consumer, topic };
}

describe.skipIf(localServersUnavailable)(
  'A consumer of the services Kafka client on a cluster of three brokers',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it("When its group coordinator's node is SIGKILLed, then it finds the new coordinator, keeps its membership and consumes a message produced after the kill", async () => {
      const { cluster, admin, producer, consumer, topic } =
        await groupOnThreeNodes(SESSION_TIMEOUT_MS);
      let joins = 0;
      consumer.on(consumer.events.GROUP_JOIN, () => {
        joins++;
      });
      const consumed: string[] = [];
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: ({ message }) => {
          consumed.push(String(message.value));
          return Promise.resolve();
        },
      });
      await producer.send({ topic, messages: [{ value: 'before' }] });
      await expect.poll(() => consumed).toEqual(['before']);

      const joinsBeforeKill = joins;
      const coordinator = cluster.nodes.get(await coordinatorNode(admin));
      coordinator?.kill('SIGKILL');
      await coordinator?.exited;
      await producer.send({ topic, messages: [{ value: 'after' }] });

      await expect
        .poll(() => consumed, { timeout: CONSUMED_AFTER_KILL_WITHIN_MS })
        .toEqual(['before', 'after']);
      expect(coordinator).toBeDefined();
      expect(joins).toBe(joinsBeforeKill);
    });

    it('When the leader of its partition is SIGKILLed while messages flow, then its heartbeats go on beside the fetch loop: it keeps its membership with a 2 s session and consumes what is produced after the kill', async () => {
      const { cluster, admin, producer, consumer, topic } = await groupOnThreeNodes(
        SHORT_SESSION_MS,
        async (admin) => {
          const coordinator = await coordinatorNode(admin);
          const { brokers } = await admin.describeCluster();
          const other = brokers.find(({ nodeId }) => nodeId !== coordinator);
          if (other === undefined) throw new Error('the cluster has one node');
          return other.nodeId;
        },
      );
      let joins = 0;
      consumer.on(consumer.events.GROUP_JOIN, () => {
        joins++;
      });
      const consumed = new Set<string>();
      await consumer.subscribe({ topic, fromBeginning: true });
      await consumer.run({
        eachMessage: ({ message }) => {
          consumed.add(String(message.value));
          return Promise.resolve();
        },
      });
      const flowing = new AbortController();
      const flow = (async () => {
        for (let index = 0; !flowing.signal.aborted; index++) {
          await producer
            .send({ topic, messages: [{ value: `flow-${index}` }] })
            .catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      })();
      onTestFinished(async () => {
        flowing.abort();
        await flow;
      });
      await expect.poll(() => consumed.size).toBeGreaterThan(50);
      expect(joins).toBe(1);

      const [partition] =
        (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions ?? [];
      const leader = cluster.nodes.get(partition?.leader ?? -1);
      expect(leader).toBeDefined();
      leader?.kill('SIGKILL');
      await leader?.exited;
      await new Promise((resolve) => setTimeout(resolve, 2 * SHORT_SESSION_MS));
      await producer.send({ topic, messages: [{ value: 'after' }] });

      await expect
        .poll(() => consumed.has('after'), { timeout: CONSUMED_AFTER_KILL_WITHIN_MS })
        .toBe(true);
      expect(joins).toBe(1);
    });
  },
);
