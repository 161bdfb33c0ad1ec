import type { IHeaders } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { startGateway } from '#gateway/gateway.ts';
import { HEADERS, readReplyPartition } from '#shared/contracts/kafka.ts';
import { createLogger } from '#shared/logger.ts';
import {
  attachGateway,
  startTestGateway,
  testGatewaySettings,
  type GatewayHarness,
  type TestGateway,
} from '../support/servers/gateway.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { aPlant } from '../support/clients/plants.ts';
import { PARTITIONS, startTestWriter } from '../support/servers/writer.ts';

const reading = (partition: number) => ({
  replyPartition: { configured: partition, instanceId: `reads-${String(partition)}` },
});

async function fetched(gateway: Pick<TestGateway, 'request'>): Promise<number> {
  const response = await gateway.request({ method: 'GET', url: '/metrics' });
  return metric(parseMetrics(response.body), 'plant_store_gateway_replies_fetched_total');
}

/** Creates a plant through `gateway`, expecting it answered 200 with that plant. */
async function createThrough(gateway: Pick<TestGateway, 'post'>) {
  const plant = aPlant();
  const response = await gateway.post(plant.body);
  expect(response.statusCode).toBe(200);
  expect(response.json()).toEqual(plant.answer);
  return plant;
}

/**
 * For each of the `count` creates, by correlation id: the reply partition its command named, and
 * the one its reply went to.
 */
async function replyPartitions(
  harness: Pick<GatewayHarness, 'received' | 'topics'>,
  count: number,
) {
  const [commands, replies] = await Promise.all([
    harness.received(harness.topics.create, count),
    harness.received(harness.topics.replies, count),
  ]);
  const correlationId = (headers: IHeaders | undefined) => String(headers?.[HEADERS.correlationId]);
  const used = new Map(
    replies.map(({ partition, message }) => [correlationId(message.headers), partition]),
  );
  return commands.map(({ message }) => ({
    named: readReplyPartition(message.headers?.[HEADERS.replyPartition] as Buffer),
    used: used.get(correlationId(message.headers)),
  }));
}

describe('Gateways that each read one partition of the reply topic', () => {
  it('When a gateway reads partition 1, then its commands name partition 1 (4-byte big-endian), every reply goes there, and it fetches only those replies', async () => {
    const gateway = await startTestGateway(reading(1));

    for (let index = 0; index < 5; index++) await createThrough(gateway);

    const commands = await gateway.received(gateway.topics.create, 5);
    expect(
      commands.map(({ message }) =>
        (message.headers?.[HEADERS.replyPartition] as Buffer).toString('hex'),
      ),
    ).toEqual(Array(5).fill('00000001'));
    expect(await replyPartitions(gateway, 5)).toEqual(Array(5).fill({ named: 1, used: 1 }));
    expect(await fetched(gateway)).toBe(5);
  });

  it('When four gateways share three partitions, two of them partition 0, then every create through each is answered with its own plant, and the two sharing fetch each other’s replies too', async () => {
    const first = await startTestGateway(reading(0));
    const others = [
      await attachGateway(first, reading(0)),
      await attachGateway(first, reading(1)),
      await attachGateway(first, reading(2)),
    ];
    const gateways = [first, ...others];

    for (let round = 0; round < 3; round++) {
      await Promise.all(gateways.map((gateway) => createThrough(gateway)));
    }

    const partitions = await replyPartitions(first, 12);
    for (const { named, used } of partitions) expect(used).toBe(named);
    expect(partitions.map(({ used }) => used).sort()).toEqual([0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2]);
    expect(await Promise.all(gateways.map(fetched))).toEqual([6, 6, 3, 3]);
  });

  it('When a gateway is replaced by one reading another partition, or the same one, then creates through the new one are answered', async () => {
    const harness = await startTestWriter();
    for (const partition of [1, 2, 2]) {
      const gateway = await attachGateway(harness, {
        ...reading(partition),
        registerCleanup: () => undefined,
      });
      await createThrough(gateway);
      await gateway.gateway.stop();
    }

    const replies = await harness.received(harness.topics.replies, 3);
    expect(replies.map(({ partition }) => partition)).toEqual([1, 2, 2]);
  });

  it('When REPLY_PARTITION is at or past the reply topic’s partition count, then the gateway does not start, naming both', async () => {
    const harness = await startTestWriter({ writer: false });

    await expect(
      startGateway(
        testGatewaySettings({
          authTokens: ['token'],
          replyTimeoutMs: 5_000,
          maxInFlight: 10,
          bodyLimitBytes: 1_024,
          topics: harness.topics,
          partitions: PARTITIONS,
          replyPartition: { configured: PARTITIONS, instanceId: 'too far' },
        }),
        { kafka: harness.kafka, logger: createLogger('gateway', 'silent') },
      ),
    ).rejects.toThrow(
      `REPLY_PARTITION is ${String(PARTITIONS)}, but ${harness.topics.replies} has ${String(PARTITIONS)} partitions (0 to ${String(PARTITIONS - 1)})`,
    );
  });
});
