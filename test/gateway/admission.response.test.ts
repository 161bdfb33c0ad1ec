import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { exchange, rawRequest } from '../support/clients/raw-http.ts';
import { aPlant } from '../support/clients/plants.ts';
import {
  commandsPublished,
  startTestGateway,
  type GatewayHarness,
} from '../support/servers/gateway.ts';

async function admissionLimit(gateway: GatewayHarness): Promise<number | undefined> {
  const response = await gateway.request({ method: 'GET', url: '/metrics' });
  return metric(parseMetrics(response.body), 'plant_store_gateway_admission_limit');
}

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

  it('When creates go unanswered, then the admission limit falls from 64 to its floor of 32, those admitted together lowering it once, and creates are still admitted', async () => {
    const gateway = await startTestGateway({
      writer: false,
      createLatencyTargetMs: 100,
      replyTimeoutMs: 200,
    });
    const before = await admissionLimit(gateway);

    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () => gateway.post(aPlant().body)),
    );
    const afterConcurrent = await admissionLimit(gateway);
    const oneByOne = [];
    for (let create = 0; create < 6; create++) oneByOne.push(await gateway.post(aPlant().body));

    expect(before).toBe(64);
    expect([...concurrent, ...oneByOne].map(({ statusCode }) => statusCode)).toEqual(
      Array(16).fill(504),
    );
    // Admitted together, the ten lower it once: 64 × 0.9; each later one by 0.9 again.
    expect(afterConcurrent).toBe(57);
    expect(await admissionLimit(gateway)).toBe(32);
    expect((await gateway.post(aPlant().body)).statusCode).toBe(504);
    expect(await commandsPublished(gateway)).toBe(17);
  });
});
