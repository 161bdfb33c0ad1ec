import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startFlood } from '../support/clients/connection-flood.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { aPlant } from '../support/clients/plants.ts';
import { limitedLauncher, serviceProcesses, writerHealthUrl } from '../support/servers/services.ts';
import { keptAliveConnection, type Exchange } from '../support/clients/steady-client.ts';
import { startTestWriter } from '../support/servers/writer.ts';

const FLOOD_MS = 30_000;
/** A command answered later than this was held up by the flood. */
const PROMPT_MS = 2_000;

describe('A writer process whose health port is flooded with connections', () => {
  it('When more idle connections than its cap are held on its port and reopened for 30 s, then it answers its commands promptly, a scraper connected before keeps being answered while /readyz says it is at its cap, and afterwards it is the same process, ready', async () => {
    const harness = await startTestWriter({ writer: false });
    const services = serviceProcesses(harness, limitedLauncher({ descriptors: 512 }));
    const writer = await services.startWriter('writer');
    const healthUrl = writerHealthUrl(writer);
    const scrape = async () => parseMetrics(await (await fetch(`${healthUrl}/metrics`)).text());
    const cap = metric(await scrape(), 'plant_store_http_max_connections');
    expect(cap).toBe(256);

    // A scraper connected before the flood: it keeps its connection and its answers.
    const scraper = keptAliveConnection(healthUrl);
    expect((await scraper.send('GET', '/readyz')).status).toBe(200);
    const scrapes: Exchange[] = [];
    let readiness: Exchange | undefined;
    const flood = await startFlood({
      kind: 'idle',
      port: Number(new URL(healthUrl).port),
      connections: cap + 200,
    });
    const answerTimesMs: number[] = [];
    const until = Date.now() + FLOOD_MS;
    const scraping = (async () => {
      while (Date.now() < until) {
        scrapes.push(await scraper.send('GET', '/metrics'));
        if (readiness === undefined && Date.now() > until - FLOOD_MS / 2)
          readiness = await scraper.send('GET', '/readyz');
        await sleep(1_000);
      }
    })();
    while (Date.now() < until) {
      const plant = aPlant();
      const sent = performance.now();
      await harness.sendCommand(String(plant.id), plant.body);
      const reply = await harness.arrival(
        harness.topics.replies,
        ({ value }) => value?.toString().includes(`"name":"${plant.name}"`) ?? false,
      );
      answerTimesMs.push(performance.now() - sent);
      expect(JSON.parse(reply.message.value?.toString() ?? '')).toEqual({
        status: 200,
        plant: plant.answer,
      });
    }
    await scraping;
    const counts = await flood.stop();

    expect(counts.closedUnanswered).toBeGreaterThan(cap);
    expect(answerTimesMs.length).toBeGreaterThan(FLOOD_MS / PROMPT_MS);
    // At most 1 % answered later than PROMPT_MS while a flood spins on the same two cores.
    expect(answerTimesMs.filter((ms) => ms > PROMPT_MS).length).toBeLessThanOrEqual(
      Math.floor(answerTimesMs.length / 100),
    );
    expect(scrapes.length).toBeGreaterThan(FLOOD_MS / 2_000);
    expect(scrapes.map(({ status }) => status)).toEqual(scrapes.map(() => 200));
    expect(scraper.opened).toBe(1);
    expect(readiness?.status).toBe(503);
    expect(JSON.parse(readiness?.text ?? '')).toEqual({
      error: 5030,
      message: `Not ready: at its cap of ${String(cap)} connections: new ones are closed at once`,
    });
    expect(writer.isRunning()).toBe(true);
    await expect
      .poll(async () => (await fetch(`${healthUrl}/readyz`)).status, { timeout: 20_000 })
      .toBe(200);
    expect(metric(await scrape(), 'plant_store_http_connections_refused_total')).toBeGreaterThan(
      cap,
    );
    expect(readFileSync(writer.logFile, 'utf8')).not.toContain('uncaught exception');
  }, 180_000);
});
