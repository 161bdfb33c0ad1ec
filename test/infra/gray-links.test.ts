import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { MongoClient, MongoNetworkTimeoutError } from 'mongodb';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { isProvisioned } from '#local/provision/provision-cache.ts';
import { cacheRoot } from '#local/provision/paths.ts';
import { PortInUseError } from '#local/provision/ports.ts';
import { ToxiproxyError } from '#local/faults/toxiproxy-client.ts';
import {
  startToxiproxy,
  TOXIPROXY_CACHE_NAME,
  TOXIPROXY_VERSION,
} from '#local/faults/toxiproxy.ts';
import { ownKafkaWithLinks, ownToxiproxy, storeLink } from '../support/servers/gray-links.ts';
import { isAlive } from '../support/servers/infra-process.ts';
import { OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';

/** A kafkajs client whose requests give up after 2 s, so a stalled one fails within the test. */
function kafkaClient(brokers: string[]): Kafka {
  return new Kafka({
    clientId: 'gray-links-test',
    brokers,
    logLevel: logLevel.NOTHING,
    requestTimeout: 2_000,
    retry: { retries: 0 },
  });
}

async function connected<T extends { connect(): Promise<void>; disconnect(): Promise<void> }>(
  client: T,
): Promise<T> {
  await client.connect();
  onTestFinished(() => client.disconnect());
  return client;
}

/** The values `consumer` reads from `topic`, as they come. */
async function readValues(consumer: Consumer, topic: string): Promise<string[]> {
  const values: string[] = [];
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: ({ message }) => {
      values.push(message.value?.toString() ?? '');
      return Promise.resolve();
    },
  });
  return values;
}

/** How long a `ping` takes, in ms. */
async function pingTime(client: MongoClient): Promise<number> {
  const started = performance.now();
  await client.db('admin').command({ ping: 1 });
  return performance.now() - started;
}

/**
 * Reads give up after 2 s without data: mongodb 7's `timeoutMS` is deprecated and has no effect,
 * and without a socket timeout a stalled ping waits for the monitor's (about 40 s).
 */
async function mongoClient(uri: string): Promise<MongoClient> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000, socketTimeoutMS: 2_000 });
  await client.connect();
  onTestFinished(() => client.close());
  return client;
}

describe('Gray links through toxiproxy', () => {
  it('When toxiproxy is started, then it is built into the cache, answers its version, names refusals and stops', async () => {
    const toxiproxy = await ownToxiproxy();

    expect(isProvisioned(cacheRoot(), TOXIPROXY_CACHE_NAME)).toBe(true);
    expect(await toxiproxy.client.version()).toBe(TOXIPROXY_VERSION);
    const proxy = { name: 'twice', listen: '127.0.0.1:0', upstream: '127.0.0.1:1' };
    await toxiproxy.client.createProxy(proxy);
    await expect(toxiproxy.client.createProxy(proxy)).rejects.toThrow(
      new ToxiproxyError(409, 'POST /proxies', 'proxy already exists'),
    );
    const port = Number(new URL(toxiproxy.url).port);
    await expect(
      startToxiproxy({ binary: '/nonexistent', port, logFile: '/dev/null' }),
    ).rejects.toThrow(PortInUseError);

    await toxiproxy.stop();
    expect(isAlive(toxiproxy.process.pid)).toBe(false);
  });

  it(
    'When a Kafka link stalls, then its producer and consumer wait while another link works, and both work again once it heals',
    async () => {
      const toxiproxy = await ownToxiproxy();
      const kafka = await ownKafkaWithLinks(toxiproxy, ['a', 'b']);
      const topic = 'gray-links';
      const admin = await connected(kafkaClient([kafka.brokers]).admin());
      await admin.createTopics({ topics: [{ topic }], waitForLeaders: true });
      const producerA = await connected(kafkaClient(kafka.links.a.brokers).producer());
      const producerB = await connected(kafkaClient(kafka.links.b.brokers).producer());
      // Its own retries: a consumer whose fetches time out restarts until the link heals.
      const consumerA = await connected(
        new Kafka({
          clientId: 'gray-links-test',
          brokers: kafka.links.a.brokers,
          logLevel: logLevel.NOTHING,
          requestTimeout: 2_000,
        }).consumer({ groupId: 'gray-links-a' }),
      );
      const readByA = await readValues(consumerA, topic);
      await producerA.send({ topic, messages: [{ value: 'before' }] });
      await expect.poll(() => readByA).toEqual(['before']);

      // Both ways: a fetch already waiting at the broker would otherwise bring its answer back.
      await kafka.links.a.faults.add({
        type: 'timeout',
        stream: 'upstream',
        attributes: { timeout: 0 },
      });
      await kafka.links.a.faults.add({
        type: 'timeout',
        stream: 'downstream',
        attributes: { timeout: 0 },
      });
      await producerB.send({ topic, messages: [{ value: 'during' }] });
      await expect(producerA.send({ topic, messages: [{ value: 'stalled' }] })).rejects.toThrow(
        /timed out/,
      );
      expect((await admin.fetchTopicOffsets(topic))[0]?.high).toBe('2');
      // The 2 s that producer waited were ample for a fetch that bypassed the proxy.
      expect(readByA).toEqual(['before']);

      await kafka.links.a.faults.heal();
      await producerA.send({ topic, messages: [{ value: 'after' }] });
      await expect
        .poll(() => readByA, { timeout: 60_000 })
        .toEqual(expect.arrayContaining(['before', 'during', 'after']));
    },
    OWN_STACK_TIMEOUT_MS,
  );

  it('When a store link is slow or stalls, then a client through it waits or gives up while a direct client answers at once', async () => {
    const toxiproxy = await ownToxiproxy();
    const link = await storeLink(toxiproxy, 'writer-1');
    const linked = await mongoClient(link.uri);
    const direct = await mongoClient(inject('mongoUri'));
    expect(link.uri).toContain('directConnection=true');

    await link.faults.add({ type: 'latency', attributes: { latency: 1_000 } });
    expect(await pingTime(linked)).toBeGreaterThanOrEqual(1_000);
    expect(await pingTime(direct)).toBeLessThan(1_000);

    await link.faults.heal();
    await link.faults.add({ type: 'timeout', stream: 'upstream', attributes: { timeout: 0 } });
    await expect(pingTime(linked)).rejects.toThrow(MongoNetworkTimeoutError);
    await pingTime(direct);

    await link.faults.heal();
    await pingTime(linked);
  });
});
