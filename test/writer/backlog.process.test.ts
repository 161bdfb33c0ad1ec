import { describe, expect, it } from 'vitest';
import { aPlant } from '../support/clients/plants.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { serviceProcesses, writerHealthUrl } from '../support/servers/services.ts';
import { namesAnswered200, produceBacklog, startTestWriter } from '../support/servers/writer.ts';

const BACKLOG = 150_000;
/** A limit on hangs: the work grows with BACKLOG, and took 31-60 s on two loaded cores. */
const BACKLOG_TIMEOUT_MS = 300_000;

describe('A writer process started behind a backlog', { timeout: BACKLOG_TIMEOUT_MS }, () => {
  it('When commands piled up while no writer ran, then a writer on the production heap answers every one in bounded batches, and a command sent after them is answered', async () => {
    const harness = await startTestWriter({ writer: false });
    const services = serviceProcesses(harness);
    const { topics } = harness;
    await produceBacklog(harness, BACKLOG);

    const writer = await services.startWriter('writer');
    const replies = await harness.received(topics.replies, BACKLOG);
    const late = aPlant();
    await harness.sendCommand(String(late.id), late.body);
    const answer = await harness.arrival(
      topics.replies,
      ({ value }) => value?.toString().includes(`"name":"${late.name}"`) ?? false,
    );

    expect(writer.isRunning()).toBe(true);
    const answered = namesAnswered200(replies);
    // Every command of the backlog, each by its own plant: not a duplicate answer counted twice
    // (`replies` goes on filling: the late command's reply is in it by now).
    answered.delete(late.name);
    expect(answered.size).toBe(BACKLOG);
    expect(JSON.parse(answer.message.value?.toString() ?? '')).toEqual({
      status: 200,
      plant: late.answer,
    });
    const scraped = parseMetrics(await (await fetch(`${writerHealthUrl(writer)}/metrics`)).text());
    const batches = metric(scraped, 'plant_store_writer_batch_size_count');
    const withinBound = metric(scraped, 'plant_store_writer_batch_size_bucket', { le: '500' });
    expect(batches).toBeGreaterThan(0);
    expect(withinBound).toBe(batches);
  });
});
