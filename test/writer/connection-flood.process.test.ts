import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startFlood } from '../support/connection-flood.ts';
import { metric, parseMetrics } from '../support/metrics.ts';
import { aPlant } from '../support/plants.ts';
import { limitedLauncher, serviceProcesses, writerHealthUrl } from '../support/services.ts';
import { startTestWriter } from '../support/writer.ts';

const FLOOD_MS = 30_000;
/** A command answered later than this was held up by the flood. */
const PROMPT_MS = 2_000;

describe('A writer process whose health port is flooded with connections', () => {
  it('When more idle connections than its cap are held on its port and reopened for 30 s, then it answers every command promptly, and afterwards is the same process, ready', async () => {
    const harness = await startTestWriter({ writer: false });
    const services = serviceProcesses(harness, limitedLauncher({ descriptors: 512 }));
    const writer = await services.startWriter('writer');
    const healthUrl = writerHealthUrl(writer);
    const scrape = async () => parseMetrics(await (await fetch(`${healthUrl}/metrics`)).text());
    const cap = metric(await scrape(), 'plant_store_writer_http_max_connections');
    expect(cap).toBe(256);

    const flood = await startFlood({
      kind: 'idle',
      port: Number(new URL(healthUrl).port),
      connections: cap + 200,
    });
    const answerTimesMs: number[] = [];
    const until = Date.now() + FLOOD_MS;
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
    const counts = await flood.stop();

    expect(counts.closedUnanswered).toBeGreaterThan(cap);
    expect(answerTimesMs.length).toBeGreaterThan(FLOOD_MS / PROMPT_MS);
    expect(answerTimesMs.filter((ms) => ms > PROMPT_MS)).toEqual([]);
    expect(writer.isRunning()).toBe(true);
    await expect
      .poll(async () => (await fetch(`${healthUrl}/readyz`)).status, { timeout: 20_000 })
      .toBe(200);
    expect(
      metric(await scrape(), 'plant_store_writer_http_connections_refused_total'),
    ).toBeGreaterThan(cap);
    expect(readFileSync(writer.logFile, 'utf8')).not.toContain('uncaught exception');
  }, 180_000);
});
