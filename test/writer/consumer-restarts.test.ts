import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kafka } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import { startWriter, type Writer, type WriterOptions } from '#writer/writer.ts';
import { kafkaClient } from '#shared/kafka/client.ts';
import { createLogger } from '#shared/logger.ts';
import { partitioner, uniqueName } from '../support/servers/kafka.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { ownKafka } from '../support/servers/own-kafka.ts';
import { aPlant, type TestPlant } from '../support/clients/plants.ts';
import { PARTITIONS, replyHeaders } from '../support/servers/writer.ts';

/** Writers of one group on a broker of the test's own, a producer of commands, a reply reader. */
async function writersOnOwnBroker(brokerSettings: Record<string, string> = {}) {
  const broker = await ownKafka(brokerSettings);
  const logger = createLogger('writer', 'silent');
  const kafka = kafkaClient('consumer-restarts-test', { brokers: [broker.brokers] }, logger);
  const client = new MongoClient(inject('mongoUri'), { useBigInt64: true });
  const settings: WriterOptions = {
    kafka,
    db: client.db(`test-${randomUUID()}`),
    topics: { create: 'plants.create', replies: 'replies', dlq: 'plants.dlq' },
    partitions: PARTITIONS,
    logger,
  };
  const writers: Writer[] = [];
  const producer = kafka.producer({ createPartitioner: partitioner });
  await producer.connect();
  onTestFinished(async () => {
    await Promise.all([...writers.map((writer) => writer.stop()), producer.disconnect()]);
    await settings.db.dropDatabase();
    await client.close();
  });
  return {
    broker,
    startWriter: async () => {
      const writer = await startWriter(settings);
      writers.push(writer);
      return writer;
    },
    send: async (plants: TestPlant[]) => {
      await producer.send({
        topic: 'plants.create',
        messages: plants.map(({ id, body }) => ({
          key: String(id),
          value: body,
          headers: replyHeaders('replies', replyPartitionHeader(0)),
        })),
      });
    },
    repliesTo: (plants: TestPlant[]) => repliesTo(kafka, 'replies', plants),
  };
}

/**
 * The replies on `topic` to `plants`, in their order, read by a consumer started now: a consumer
 * that lived through the fault would be the thing under test.
 */
async function repliesTo(kafka: Kafka, topic: string, plants: TestPlant[]): Promise<unknown[]> {
  const consumer = kafka.consumer({ groupId: uniqueName('reader'), maxWaitTimeInMs: 100 });
  onTestFinished(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const byName = new Map<string, unknown>();
  const names = new Set(plants.map(({ name }) => name));
  return new Promise((resolve) => {
    void consumer.run({
      eachMessage: ({ message }) => {
        const reply = JSON.parse(String(message.value)) as { plant?: { name: string } };
        const name = reply.plant?.name;
        if (name !== undefined && names.has(name)) byName.set(name, reply);
        if (byName.size === names.size) resolve(plants.map(({ name }) => byName.get(name)));
        return Promise.resolve();
      },
    });
  });
}

const SEND_RETRY_MS = 20;

const answered = (plants: TestPlant[]) =>
  plants.map(({ answer }) => ({ status: 200, plant: answer }));

// kafkajs restarts its consumer only after errors it deems retriable; after the others it stayed
// stopped for good, with the process up and its partitions unanswered.
describe.skipIf(localServersUnavailable)(
  'Writers whose consumer kafkajs gave up on',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the group is full, then the writer left out says why, keeps trying, and takes over once a place frees up', async () => {
      const { startWriter, send, repliesTo } = await writersOnOwnBroker({ 'group.max.size': '1' });
      const first = await startWriter();
      await expect.poll(() => first.notReadyReason()).toBeUndefined();

      const second = await startWriter();
      await expect
        .poll(() => second.notReadyReason())
        .toBe(
          'the consumer is restarting after an error: The consumer group has reached its max ' +
            'size. It already has the configured maximum number of members',
        );
      await first.stop();

      await expect.poll(() => second.notReadyReason(), { timeout: 30_000 }).toBeUndefined();
      const ferns = Array.from({ length: 6 }, () => aPlant());
      await send(ferns);
      expect(await repliesTo(ferns)).toEqual(answered(ferns));
    });

    it('When the only broker stops and starts again under load, then both writers rejoin and the next commands are answered', async () => {
      const { broker, startWriter, send, repliesTo } = await writersOnOwnBroker();
      const writers = [await startWriter(), await startWriter()];
      const before = Array.from({ length: 6 }, () => aPlant());
      await send(before);
      await repliesTo(before);

      // As in `npm run chaos`: the writers are answering, committing and heartbeating meanwhile.
      // A send that fails at once (the producer disconnected) must not starve the event loop, and
      // the load ends with the test even when the test ends on its timeout.
      const loading = new AbortController();
      onTestFinished(() => {
        loading.abort();
      });
      const load = (async () => {
        while (!loading.signal.aborted) await send([aPlant()]).catch(() => sleep(SEND_RETRY_MS));
      })();
      await broker.stop();
      await broker.start();
      loading.abort();
      await load;

      await expect
        .poll(() => writers.map((writer) => writer.notReadyReason()), { timeout: 60_000 })
        .toEqual([undefined, undefined]);
      const after = Array.from({ length: 6 }, () => aPlant());
      await send(after);
      expect(await repliesTo(after)).toEqual(answered(after));
    });
  },
);
