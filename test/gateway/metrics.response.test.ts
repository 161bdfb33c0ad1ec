import { describe, expect, it } from 'vitest';
import { startTestGateway, TOKEN, type GatewayHarness } from '../support/servers/gateway.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { aPlant } from '../support/clients/plants.ts';
import { abandonedPost } from '../support/clients/http-client.ts';
import { exchange, rawRequest } from '../support/clients/raw-http.ts';

async function scrape(gateway: GatewayHarness) {
  const response = await gateway.request({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(response.body);
}

describe('GET /metrics on the gateway', () => {
  it('When creates were answered 200, 4009, 4000, 4001 and 401, then each outcome, the request durations by route and the Kafka sends are counted', async () => {
    const gateway = await startTestGateway();

    const fern = aPlant();
    for (const plant of [fern, aPlant(), aPlant()]) {
      expect((await gateway.post(plant.body)).statusCode).toBe(200);
    }
    expect((await gateway.post(fern.with({ name: 'Not a fern' }).body)).json()).toMatchObject({
      error: 4009,
    });
    expect((await gateway.post('{"id": 4}')).json()).toMatchObject({ error: 4000 });
    expect((await gateway.post('{"id": 4,')).json()).toMatchObject({ error: 4001 });
    expect(
      (await gateway.post(aPlant().body, { authorization: 'Bearer wrong' })).json(),
    ).toMatchObject({ error: 4010 });
    expect((await gateway.request({ method: 'GET', url: '/plants/1' })).statusCode).toBe(404);
    const samples = await scrape(gateway);

    const creates = (code: string) =>
      metric(samples, 'plant_store_gateway_creates_total', { code });
    expect(['200', '4009', '4000', '4001', '4010'].map(creates)).toEqual([3, 1, 1, 1, 1]);
    const answered = (labels: Record<string, string>) =>
      metric(samples, 'plant_store_http_request_duration_seconds_count', labels);
    expect(answered({ method: 'POST', route: '/plants', status_code: '200' })).toBe(3);
    expect(answered({ method: 'POST', route: '/plants', status_code: '400' })).toBe(3);
    expect(answered({ method: 'POST', route: '/plants', status_code: '401' })).toBe(1);
    // A route per URL would let any client grow the series without bound.
    expect(answered({ method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1);
    expect(metric(samples, 'plant_store_http_request_duration_seconds_sum')).toBeGreaterThan(0);
    // Four commands reached Kafka (three new plants and the conflict), in one send or more.
    const sends = metric(samples, 'plant_store_gateway_kafka_produce_duration_seconds_count', {
      outcome: 'ok',
    });
    expect(sends).toBeGreaterThanOrEqual(1);
    expect(sends).toBeLessThanOrEqual(4);
    expect(metric(samples, 'plant_store_gateway_replies_waiting')).toBe(0);
    expect(metric(samples, 'plant_store_gateway_reply_timeouts_total')).toBe(0);
    // The bounds alerts compare with, as the test gateway sets them (its event-loop check is off).
    expect(metric(samples, 'plant_store_gateway_max_in_flight')).toBe(1_000);
    expect(metric(samples, 'plant_store_gateway_max_event_loop_delay_seconds')).toBe(0);
    expect(
      samples.find(({ name }) => name === 'process_resident_memory_bytes')?.labels,
    ).toMatchObject({ service: 'gateway' });
    expect(metric(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
  });

  it('When a create waits for a writer that never answers, then it shows as waiting, and after the deadline as a reply timeout and a 5040', async () => {
    const gateway = await startTestGateway({ writer: false, replyTimeoutMs: 2_000 });

    const answer = gateway.post('{"id": 6, "name": "Ivy"}');
    await expect
      .poll(async () => metric(await scrape(gateway), 'plant_store_gateway_replies_waiting'))
      .toBe(1);
    expect((await answer).statusCode).toBe(504);
    const samples = await scrape(gateway);

    expect(metric(samples, 'plant_store_gateway_replies_waiting')).toBe(0);
    expect(metric(samples, 'plant_store_gateway_reply_timeouts_total')).toBe(1);
    expect(metric(samples, 'plant_store_gateway_creates_total', { code: '5040' })).toBe(1);
  });

  it('When a client hangs up while its create waits for a writer, then its request is timed with status 499 when it leaves, and the create is counted once, when the gateway gives up on it', async () => {
    const gateway = await startTestGateway({ writer: false, replyTimeoutMs: 2_000 });
    const address = await gateway.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const client = abandonedPost(address, '{"id": 7, "name": "Aloe"}');
    const timed = async (labels: Record<string, string>) =>
      metric(await scrape(gateway), 'plant_store_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/plants',
        ...labels,
      });

    await expect
      .poll(async () => metric(await scrape(gateway), 'plant_store_gateway_replies_waiting'))
      .toBe(1);
    const hungUp = await client.hangUp();

    expect(hungUp).toBe('AbortError');
    await expect.poll(() => timed({ status_code: '499' })).toBe(1);
    await expect
      .poll(async () => metric(await scrape(gateway), 'plant_store_gateway_reply_timeouts_total'))
      .toBe(1);
    const samples = await scrape(gateway);
    expect(metric(samples, 'plant_store_gateway_creates_total', { code: '5040' })).toBe(1);
    expect(await timed({})).toBe(1);
  });

  it('When a body arrives more slowly than REQUEST_TIMEOUT_MS, then the request is timed with the 408 it got, not as a client that left', async () => {
    const gateway = await startTestGateway({ requestTimeoutMs: 1_000 });
    const address = await gateway.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const body = '{"id": 8, "name": "Slow fern"}';
    const head = rawRequest('POST /plants HTTP/1.1', {
      host: new URL(address).host,
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'content-length': String(body.length),
    });

    const answer = await exchange(Number(new URL(address).port), {
      head,
      trickle: Buffer.from(body),
      everyMs: 250,
    });

    expect(answer?.status).toBe(408);
    await expect
      .poll(async () => {
        const samples = await scrape(gateway);
        return ['408', '499'].map((status) =>
          metric(samples, 'plant_store_http_request_duration_seconds_count', {
            route: '/plants',
            status_code: status,
          }),
        );
      })
      .toEqual([1, 0]);
  });
});
