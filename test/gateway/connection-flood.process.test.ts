import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { percentile } from '#tooling/statistics/percentile.ts';
import type { ServerProcess } from '#local/process/server-process.ts';
import { startFlood } from '../support/clients/connection-flood.ts';
import { TOKEN } from '../support/servers/gateway.ts';
import { postPlant } from '../support/clients/http-client.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { aPlant } from '../support/clients/plants.ts';
import { limitedLauncher, serviceProcesses } from '../support/servers/services.ts';
import { startSteadyClient, type SteadyResult } from '../support/clients/steady-client.ts';
import { startTestWriter } from '../support/servers/writer.ts';

const FLOOD_MS = 30_000;
/** Creates a second from the client connected before the flood. */
const STEADY_RATE = 50;
/** How long a client's latency is measured without a flood, then with it, in each of ROUNDS. */
const WINDOW_MS = 6_000;
const ROUNDS = 4;

async function scrape(url: string) {
  return parseMetrics(await (await fetch(`${url}/metrics`)).text());
}

function logLines(service: ServerProcess, words: string): number {
  return readFileSync(service.logFile, 'utf8')
    .split('\n')
    .filter((line) => line.includes(words)).length;
}

/** What holds once any flood is over: the same process, ready again, serving new connections. */
async function expectRecovered(gateway: ServerProcess, url: string) {
  expect(gateway.isRunning()).toBe(true);
  await expect
    .poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 20_000 })
    .toBe(200);
  const answer = await postPlant(url, aPlant().body);
  expect('status' in answer && answer.status).toBe(200);
  expect(logLines(gateway, 'uncaught exception')).toBe(0);
  expect(gateway.isRunning()).toBe(true);
}

describe('A gateway process flooded with connections', () => {
  it('When more idle connections than its cap are held and reopened for 30 s, then a client connected before gets 200 for ≥ 99 % of its creates, and afterwards the gateway is the same process, ready, and answers a new connection 200', async () => {
    const harness = await startTestWriter();
    // 512 descriptors: the cap is the limit less its reserve (half of it, at this size).
    const services = serviceProcesses(harness, limitedLauncher({ descriptors: 512 }));
    const { process: gateway, url } = await services.startGateway('gateway');
    const cap = metric(await scrape(url), 'plant_store_http_max_connections');
    expect(cap).toBe(256);
    const client = await startSteadyClient(url, STEADY_RATE);

    const flood = await startFlood({
      kind: 'idle',
      port: Number(new URL(url).port),
      connections: cap + 200,
    });
    await sleep(FLOOD_MS / 2);
    const readiness = await client.get('/readyz');
    await sleep(FLOOD_MS / 2);
    const counts = await flood.stop();
    const steady = await client.stop();

    // The flood was refused at the cap, and what got in was closed by the head's timeout.
    expect(counts.closedUnanswered).toBeGreaterThan(cap);
    expect(counts.answered['408']).toBeGreaterThan(cap);
    expect(readiness.status).toBe(503);
    expect(JSON.parse(readiness.text)).toEqual({
      error: 5030,
      message: `Not ready: at its cap of ${String(cap)} connections: new ones are closed at once`,
    });
    expect(steady.okLatenciesMs.length / steady.sent).toBeGreaterThanOrEqual(0.99);
    expect(steady.connectionsOpened).toBe(1);
    await expectRecovered(gateway, url);
    const samples = await scrape(url);
    expect(metric(samples, 'plant_store_http_connections_refused_total')).toBeGreaterThan(cap);
    // One burst, told once when it began and once when it ended.
    expect(logLines(gateway, 'connection cap reached')).toBe(1);
    expect(logLines(gateway, 'connections below the cap again')).toBe(1);
  }, 180_000);

  it('When more connections than its cap each send a maximum-size body slowly, then its heap stays under its limit and a client connected before gets 200 for ≥ 99 % of its creates', async () => {
    const heapLimitMiB = 64;
    const harness = await startTestWriter();
    const services = serviceProcesses(
      harness,
      limitedLauncher({ nodeFlags: [`--max-old-space-size=${String(heapLimitMiB)}`] }),
    );
    const bodyBytes = 16_384;
    const { process: gateway, url } = await services.startGateway('gateway', {
      BODY_LIMIT_BYTES: String(bodyBytes),
    });
    const cap = metric(await scrape(url), 'plant_store_http_max_connections');
    const client = await startSteadyClient(url, STEADY_RATE);

    // 256-byte chunks every 150 ms: all but the last byte of the body within REQUEST_TIMEOUT_MS.
    const flood = await startFlood({
      kind: 'slow-bodies',
      port: Number(new URL(url).port),
      connections: cap + 200,
      token: TOKEN,
      bodyBytes,
      chunkBytes: 256,
      everyMs: 150,
    });
    await sleep(FLOOD_MS);
    const counts = await flood.stop();
    const steady = await client.stop();

    // Each body was held until REQUEST_TIMEOUT_MS ended it.
    expect(counts.answered['408']).toBeGreaterThan(cap);
    expect(steady.heapUsedBytes.length).toBeGreaterThan(FLOOD_MS / 2_000);
    expect(Math.max(...steady.heapUsedBytes)).toBeLessThan(heapLimitMiB * 1024 * 1024);
    expect(steady.okLatenciesMs.length / steady.sent).toBeGreaterThanOrEqual(0.99);
    await expectRecovered(gateway, url);
  }, 180_000);

  it('When wrong tokens are sent as fast as 64 connections can, then an authenticated client’s p99 is at most twice what it is without them, and the heap does not grow', async () => {
    const harness = await startTestWriter();
    const services = serviceProcesses(harness);
    const { process: gateway, url } = await services.startGateway('gateway');
    const measure = async (windowMs: number) => {
      const client = await startSteadyClient(url, STEADY_RATE);
      await sleep(windowMs);
      const result = await client.stop();
      expect(result.failures).toEqual([]);
      return result;
    };
    await measure(5_000); // the gateway's first seconds: JIT and pools
    const flood = await startFlood({
      kind: 'wrong-tokens',
      port: Number(new URL(url).port),
      connections: 64,
    });
    // Windows without and with the flood in turn (its process stopped, then let go): whatever
    // else the machine runs meanwhile weighs on both sides alike.
    const without: SteadyResult[] = [];
    const during: SteadyResult[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      flood.pause();
      without.push(await measure(WINDOW_MS));
      flood.resume();
      during.push(await measure(WINDOW_MS));
    }
    const counts = await flood.stop();
    const p99 = (results: SteadyResult[]) =>
      percentile(
        results.flatMap(({ okLatenciesMs }) => okLatenciesMs).sort((a, b) => a - b),
        99,
      );
    const heapMiB = (results: SteadyResult[]) =>
      percentile(
        results.flatMap(({ heapUsedBytes }) => heapUsedBytes).sort((a, b) => a - b),
        50,
      ) /
      2 ** 20;

    // 401s, and 408s for requests the pause cut in half.
    expect(Object.keys(counts.answered).filter((status) => status !== '408')).toEqual(['401']);
    // Paced: the budget's 50 a second at once, then one per connection per second.
    expect(counts.answered['401']).toBeGreaterThan(WINDOW_MS / 1_000);
    expect(counts.answered['401']).toBeLessThan(((50 + 64) * ROUNDS * WINDOW_MS * 1.5) / 1_000);
    expect(p99(during)).toBeLessThanOrEqual(2 * p99(without));
    expect(heapMiB(during)).toBeLessThan(heapMiB(without) + 16);
    expect(
      metric(await scrape(url), 'plant_store_gateway_auth_refusals_delayed_total'),
    ).toBeGreaterThan(0);
    await expectRecovered(gateway, url);
  }, 300_000);

  it('When MAX_CONNECTIONS is set above its descriptor limit and a flood takes every descriptor, then it survives: the exhaustion is logged once, counted and told by /readyz while it lasts, and a client connected before keeps its connection and every answer (200, or 503/504 while Kafka cannot be reached)', async () => {
    const harness = await startTestWriter();
    const services = serviceProcesses(harness, limitedLauncher({ descriptors: 256 }));
    const { process: gateway, url } = await services.startGateway('gateway', {
      MAX_CONNECTIONS: '1000',
    });
    expect(logLines(gateway, 'MAX_CONNECTIONS leaves fewer than')).toBe(1);
    const client = await startSteadyClient(url, STEADY_RATE);

    const flood = await startFlood({
      kind: 'idle',
      port: Number(new URL(url).port),
      connections: 400,
    });
    await sleep(FLOOD_MS / 2);
    const readiness = await client.get('/readyz');
    const exhausted = metric(
      parseMetrics((await client.get('/metrics')).text),
      'plant_store_resource_exhaustion_total',
      { code: 'EMFILE' },
    );
    await sleep(FLOOD_MS / 2);
    await flood.stop();
    const steady = await client.stop();

    expect(readiness.status).toBe(503);
    expect(JSON.parse(readiness.text)).toEqual({
      error: 5030,
      message: 'Not ready: out of file descriptors (EMFILE)',
    });
    expect(exhausted).toBeGreaterThan(0);
    // Answered, never dropped: out of descriptors, the gateway cannot reopen a connection to
    // Kafka nor load a module kafkajs loads on first use, so some creates time out.
    expect(steady.okLatenciesMs.length).toBeGreaterThan(0);
    expect(steady.failures.filter((status) => status !== '503' && status !== '504')).toEqual([]);
    expect(steady.connectionsOpened).toBe(1);
    await expectRecovered(gateway, url);
    expect(logLines(gateway, 'out of file descriptors: surviving')).toBe(1);
    expect(logLines(gateway, 'no longer out of file descriptors')).toBe(1);
  }, 180_000);
});
