import { describe, expect, it, onTestFinished } from 'vitest';
import { kafkaClient } from '#shared/kafka/client.ts';
import { createLogger } from '#shared/logger.ts';
import { attachGateway, type TestGateway } from '../support/servers/gateway.ts';
import { ownKafkaWithLinks, ownToxiproxy } from '../support/servers/gray-links.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { parseMetrics } from '../support/checks/metrics.ts';
import { aPlant } from '../support/clients/plants.ts';
import { startTestWriter } from '../support/servers/writer.ts';

const REPLY_TIMEOUT_MS = 5_000;

/** A gateway in front of a writer, and another gateway whose every Kafka request goes through link `cut`. */
async function gatewaysWithOneLink() {
  const toxiproxy = await ownToxiproxy();
  const kafka = await ownKafkaWithLinks(toxiproxy, ['cut']);
  const harness = await startTestWriter({ brokers: kafka.brokers });
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('gateway', 'warn', {
    write: (line: string) => {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  const healthy = await attachGateway(harness, { replyTimeoutMs: REPLY_TIMEOUT_MS, logger });
  const cut = await attachGateway(
    {
      ...harness,
      kafka: kafkaClient('cut-gateway', { brokers: kafka.links.cut.brokers }, logger),
    },
    { replyTimeoutMs: REPLY_TIMEOUT_MS, logger },
  );
  return { healthy, cut, faults: kafka.links.cut.faults, lines };
}

/** A fresh plant through `gateway` answers 200 with the plant. */
async function expectCreated(gateway: TestGateway): Promise<void> {
  const plant = aPlant();
  const answer = await gateway.post(plant.body);
  expect(answer.statusCode).toBe(200);
  expect(answer.json()).toEqual(plant.answer);
}

describe.skipIf(localServersUnavailable)(
  'A gateway whose path to Kafka is a black hole (the writer and another gateway reach Kafka)',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the path drops every byte, then that gateway answers 503/504 within the reply timeout, turns unready saying why, the other gateway answers 200, and once the path heals it answers 200 again', async () => {
      const { healthy, cut, faults } = await gatewaysWithOneLink();
      expect((await cut.post(aPlant().body)).statusCode).toBe(200);

      await faults.blackHole();
      onTestFinished(() => faults.heal());

      const during = await cut.post(aPlant().body);
      expect([503, 504]).toContain(during.statusCode);
      await expect
        .poll(async () => (await cut.request({ url: '/readyz' })).json<unknown>(), {
          timeout: 20_000,
        })
        .toMatchObject({
          error: 5030,
          message: expect.stringMatching(
            /^Not ready: no fetch of replies answered by Kafka for/,
          ) as string,
        });
      await expectCreated(healthy);

      await faults.heal();

      await expect
        .poll(async () => (await cut.request({ url: '/readyz' })).statusCode, {
          timeout: 20_000,
        })
        .toBe(200);
      await expectCreated(cut);
    });

    it('When the black hole outlasts the Kafka request timeout, then the gateway replaces its connections to the broker and counts the timeouts, and once the path heals it is ready and answers 200 within seconds', async () => {
      const { cut, faults, lines } = await gatewaysWithOneLink();

      await faults.blackHole();
      onTestFinished(() => faults.heal());
      await expect
        .poll(() => lines.filter(({ msg }) => String(msg).endsWith('replacing the connection')), {
          timeout: 30_000,
        })
        .not.toEqual([]);
      const timeouts = parseMetrics((await cut.request({ url: '/metrics' })).body).filter(
        ({ name }) => name === 'plant_store_kafka_request_timeouts_total',
      );
      expect(timeouts.reduce((sum, { value }) => sum + value, 0)).toBeGreaterThan(0);
      await faults.heal();

      await expect
        .poll(async () => (await cut.request({ url: '/readyz' })).statusCode, {
          timeout: 15_000,
        })
        .toBe(200);
      await expectCreated(cut);
    });
  },
);
