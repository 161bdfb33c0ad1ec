import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { exchange, rawRequest } from '../support/clients/raw-http.ts';
import { aPlant } from '../support/clients/plants.ts';
import {
  attachGateway,
  commandsPublished,
  startTestGateway,
  type TestGateway,
} from '../support/servers/gateway.ts';
import { ownToxiproxy, writerBehindStoreLink } from '../support/servers/gray-links.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { startTestWriter, writerOptions } from '../support/servers/writer.ts';
import { createLogger } from '#shared/logger.ts';

async function gauge(gateway: TestGateway, name: string): Promise<number | undefined> {
  const response = await gateway.request({ method: 'GET', url: '/metrics' });
  return metric(parseMetrics(response.body), name);
}

const admissionLimit = (gateway: TestGateway) =>
  gauge(gateway, 'plant_store_gateway_admission_limit');

describe('Creates admitted at once', () => {
  it('When as many creates wait for writers as are admitted, then the next is refused 503/5030 with Retry-After on its headers alone, unread and unpublished; once one is answered, the next is admitted', async () => {
    const gateway = await startTestGateway({
      writer: false,
      maxInFlight: 1,
      replyTimeoutMs: 1_500,
    });
    await gateway.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = gateway.gateway.app.server.address() as AddressInfo;
    const waiting = gateway.post(aPlant().body);
    await expect.poll(() => commandsPublished(gateway)).toBe(1);

    // A body is announced and never sent, and the token is not one the gateway knows.
    const sentAt = Date.now();
    const refused = await exchange(
      port,
      rawRequest('POST /plants HTTP/1.1', {
        host: 'localhost',
        authorization: 'Bearer not-a-token',
        'content-type': 'application/json',
        'content-length': '100',
      }),
    );
    const answeredWithinMs = Date.now() - sentAt;

    expect(refused?.status).toBe(503);
    expect(refused?.headers['retry-after']).toBe('1');
    expect(JSON.parse(refused?.body ?? '{}')).toEqual({
      error: 5030,
      message: '1 requests are already waiting for writers; retry shortly',
    });
    expect(answeredWithinMs).toBeLessThan(1_000);
    expect((await waiting).statusCode).toBe(504);
    expect((await gateway.post(aPlant().body)).statusCode).toBe(504);
    expect(await commandsPublished(gateway)).toBe(2);
  });

  it('When creates go unanswered while half the limit is in use, then a wave of them halves the admission limit, from 64 (MAX_IN_FLIGHT) to its floor of 32; beyond it creates are refused, within it still admitted', async () => {
    const gateway = await startTestGateway({
      writer: false,
      createLatencyTargetMs: 25,
      // The limit starts at MAX_IN_FLIGHT when that is below 1,000.
      maxInFlight: 64,
      replyTimeoutMs: 200,
    });
    const wave = () => Promise.all(Array.from({ length: 40 }, () => gateway.post(aPlant().body)));
    const limits = [await admissionLimit(gateway)];
    const answers = [];

    for (let round = 0; round < 2; round++) {
      answers.push(...(await wave()));
      limits.push(await admissionLimit(gateway));
    }

    const statuses = answers.map(({ statusCode }) => statusCode);
    expect(limits).toEqual([64, 32, 32]);
    // The second wave's 40 meet a limit of 32: 8 are refused at once, and never published.
    expect(statuses.filter((status) => status === 504)).toHaveLength(72);
    expect(statuses.filter((status) => status === 503)).toHaveLength(8);
    expect((await gateway.post(aPlant().body)).statusCode).toBe(504);
    expect(await commandsPublished(gateway)).toBe(73);
  });
});

describe.skipIf(localServersUnavailable)(
  'Creates admitted at once, the store far away',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the writer’s store is 25 ms away each way and 64 clients each send their next create once the last is answered, then every create is answered 200 and the admission limit does not fall', async () => {
      const harness = await startTestWriter({ writer: false });
      const { link } = await writerBehindStoreLink(
        await ownToxiproxy(),
        writerOptions(harness, { logger: createLogger('writer', 'silent') }),
        'far-store',
      );
      for (const stream of ['upstream', 'downstream'] as const)
        await link.faults.add({ type: 'latency', stream, attributes: { latency: 25 } });
      const gateway = {
        ...harness,
        ...(await attachGateway(harness, { createLatencyTargetMs: 25 })),
      };
      const statuses: number[] = [];
      const client = async () => {
        for (let create = 0; create < 20; create++)
          statuses.push((await gateway.post(aPlant().body)).statusCode);
      };

      await Promise.all(Array.from({ length: 64 }, client));

      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expect(await admissionLimit(gateway)).toBe(1_000);
      // The path's own latency, learned: at least the store's round trip of 50 ms.
      expect(
        await gauge(gateway, 'plant_store_gateway_admission_path_latency_seconds'),
      ).toBeGreaterThan(0.05);
      expect(await commandsPublished(gateway)).toBe(64 * 20);
    });
  },
);
