import type { Admin } from 'kafkajs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { kafkaClient } from '#shared/kafka/client.ts';
import { kafkaErrorIsRetriable } from '#shared/kafka/retriable.ts';
import { createLogger } from '#shared/logger.ts';
import { startUpWithin } from '#shared/start-up.ts';
import { partitioner, uniqueName } from '../support/servers/kafka.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { ownKafkaCluster } from '../support/servers/own-kafka.ts';

/**
 * Long enough that a consumer which loses its membership cannot be back within the wait below:
 * joining again as a new member waits for the old member's session to end.
 */
const SESSION_TIMEOUT_MS = 30_000;
const CONSUMED_AFTER_KILL_WITHIN_MS = 20_000;
const TOPIC_KNOWN_WITHIN_MS = 10_000;

/** The local brokers keep one offsets partition: its leader coordinates every group. */
async function coordinatorNode(admin: Admin): Promise<number> {
  const [offsets] = (await admin.fetchTopicMetadata({ topics: ['__consumer_offsets'] })).topics;
  const leader = offsets?.partitions.find(({ partitionId }) => partitionId === 0)?.leader;
  if (leader === undefined) throw new Error('__consumer_offsets has no partition 0');
  return leader;
}

describe.skipIf(localServersUnavailable)(
  'A consumer of the services Kafka client on a cluster of three brokers',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it("When its group coordinator's node is SIGKILLed, then it finds the new coordinator, keeps its membership and consumes a message produced after the kill", async () => {
      const cluster = await ownKafkaCluster(3);
      const logger = createLogger('coordinator-test', 'silent');
      const kafka = kafkaClient(
        'coordinator-test',
        { brokers: cluster.brokers.split(',') },
        logger,
      );
      const admin = kafka.admin();
      const producer = kafka.producer({ createPartitioner: partitioner });
      const consumer = kafka.consumer({
        groupId: uniqueName('group'),
        sessionTimeout: SESSION_TIMEOUT_MS,
        heartbeatInterval: 500,
        maxWaitTimeInMs: 250,
      });
      onTestFinished(async () => {
        await Promise.all([admin.disconnect(), producer.disconnect(), consumer.disconnect()]);
      });
      await Promise.all([admin.connect(), producer.connect(), consumer.connect()]);
      const topic = uniqueName('test');
      // A topic just created is not known at once to every broker: the one kafkajs asks for its
      // leaders (waitForLeaders) or subscribe asks may refuse it with the retriable
      // UNKNOWN_TOPIC_OR_PARTITION until it has caught up, so both are retried as a service's
      // start retries them (a creation retried finds the topic there: TOPIC_ALREADY_EXISTS).
      await startUpWithin(TOPIC_KNOWN_WITHIN_MS, logger).retry(
        `the topic ${topic} to be created`,
        () =>
          admin.createTopics({
            topics: [{ topic, numPartitions: 1, replicationFactor: 3 }],
            waitForLeaders: true,
          }),
        kafkaErrorIsRetriable,
      );
      let joins = 0;
      consumer.on(consumer.events.GROUP_JOIN, () => {
        joins++;
      });
      const consumed: string[] = [];
      await startUpWithin(TOPIC_KNOWN_WITHIN_MS, logger).retry(
        `the topic ${topic} to be known to the broker asked`,
        () => consumer.subscribe({ topic, fromBeginning: true }),
        kafkaErrorIsRetriable,
      );
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
  },
);
