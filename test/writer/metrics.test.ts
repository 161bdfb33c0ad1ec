import { describe, expect, it, onTestFinished } from 'vitest';
import { startOpsPort } from '#writer/health/ops-port.ts';
import { startWriter, type WriterOptions } from '#writer/writer.ts';
import { createLogger } from '#shared/logger.ts';
import { localServersUnavailable } from '../support/servers/local-servers.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { ownStore } from '../support/servers/own-store.ts';
import { json, PARTITIONS, startTestWriter, writerOptions } from '../support/servers/writer.ts';

/** A writer with its health and metrics port, stopped when the test ends. */
async function writerWithMetrics(options: WriterOptions) {
  const writer = await startWriter(options);
  const server = await startOpsPort(writer, {
    host: '127.0.0.1',
    port: 0,
    logger: options.logger,
    limits: { maxConnections: 64, headersTimeoutMs: 3_000, keepAliveTimeoutMs: 5_000 },
  });
  onTestFinished(async () => {
    await writer.stop();
    await server.close();
  });
  const scrape = async () => {
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    return parseMetrics(await response.text());
  };
  return { writer, url: server.url, scrape };
}

/** Lag by partition number, as reported for `topic`. */
const lagOf = (samples: ReturnType<typeof parseMetrics>, topic: string): Record<string, number> =>
  Object.fromEntries(
    samples
      .filter(
        ({ name, labels }) => name === 'plant_store_writer_consumer_lag' && labels.topic === topic,
      )
      .map(({ labels, value }): [string, number] => [labels.partition ?? '', value]),
  );

describe('The writer’s metrics, health and readiness port', () => {
  it('When commands were answered 200, 4009, 4000 and 4001, then each outcome, the DLQ copies, the batches, the store round trips and a lag of 0 on every partition are reported', async () => {
    const harness = await startTestWriter({ writer: false });
    const { url, scrape } = await writerWithMetrics(writerOptions(harness));
    await expect.poll(async () => (await fetch(`${url}/readyz`)).status).toBe(200);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });

    await harness.sendCommand('1', '{"id": 1, "name": "Fern"}');
    await harness.received(harness.topics.replies, 1);
    for (const [key, value] of [
      ['2', '{"id": 2, "name": "Moss"}'],
      ['1', '{"id": 1, "name": "Fern"}'],
      ['1', '{"id": 1, "name": "Not a fern"}'],
      ['3', '{"id": 3}'],
      ['4', '{"id": 4,'],
    ] as const) {
      await harness.sendCommand(key, value);
    }
    const replies = await harness.received(harness.topics.replies, 6);
    expect(replies.map((reply) => (json(reply) as { status: number }).status).sort()).toEqual([
      200, 200, 200, 400, 400, 400,
    ]);

    await expect
      .poll(async () => lagOf(await scrape(), harness.topics.create))
      .toEqual(
        Object.fromEntries(Array.from({ length: PARTITIONS }, (_, partition) => [partition, 0])),
      );
    const samples = await scrape();
    const outcome = (code: string) =>
      metric(samples, 'plant_store_writer_commands_total', { outcome: code });
    expect(['200', '4009', '4000', '4001'].map(outcome)).toEqual([3, 1, 1, 1]);
    expect(metric(samples, 'plant_store_writer_dlq_messages_total')).toBe(2);
    expect(metric(samples, 'plant_store_writer_batch_size_sum')).toBe(6);
    const batches = metric(samples, 'plant_store_writer_batch_size_count');
    expect(batches).toBeGreaterThanOrEqual(2);
    expect(metric(samples, 'plant_store_writer_batch_duration_seconds_count')).toBe(batches);
    const storeTrips = (operation: string) =>
      metric(samples, 'plant_store_writer_store_duration_seconds_count', {
        operation,
        outcome: 'ok',
      });
    expect(storeTrips('insert')).toBeGreaterThanOrEqual(2);
    // The repeat and the conflict of id 1 came after the writer stored it: it remembered the
    // plant once per batch they came in.
    expect([1, 2]).toContain(metric(samples, 'plant_store_writer_plants_remembered_total'));
    expect(metric(samples, 'plant_store_writer_store_retries_total')).toBe(0);
    expect(metric(samples, 'plant_store_writer_ready')).toBe(1);
    // Every command got its reply, the invalid ones too, each within the test's few seconds.
    expect(metric(samples, 'plant_store_writer_reply_delay_seconds_count')).toBe(6);
    expect(metric(samples, 'plant_store_writer_reply_delay_seconds_bucket', { le: '5' })).toBe(6);
    expect(
      samples.find(({ name }) => name === 'process_cpu_user_seconds_total')?.labels,
    ).toMatchObject({ service: 'writer' });
  });

  it.skipIf(localServersUnavailable)(
    'When the store is down, then the waiting commands show as lag and store retries, the writer turns unready naming the store, and after recovery it is ready again with a lag of 0',
    async () => {
      const store = await ownStore();
      const harness = await startTestWriter({ writer: false });
      const { url, scrape } = await writerWithMetrics(
        writerOptions(harness, { db: store.db, logger: createLogger('writer', 'silent') }),
      );
      await expect.poll(async () => (await fetch(`${url}/readyz`)).status).toBe(200);

      await store.stop();
      await harness.sendCommand('7', '{"id": 7, "name": "Orchid"}');
      await harness.sendCommand('7', '{"id": 7, "name": "Orchid"}');
      await expect
        .poll(async () => metric(await scrape(), 'plant_store_writer_store_retries_total'), {
          timeout: 15_000,
        })
        .toBeGreaterThan(0);
      const during = await scrape();
      expect(metric(during, 'plant_store_writer_consumer_lag')).toBe(2);
      expect(
        metric(during, 'plant_store_writer_store_duration_seconds_count', { outcome: 'error' }),
      ).toBeGreaterThan(0);
      expect(metric(during, 'plant_store_writer_commands_total')).toBe(0);
      // Once the store has been silent for SILENT_MS (away-from-store.ts).
      await expect
        .poll(async () => (await fetch(`${url}/readyz`)).json(), { timeout: 15_000 })
        .toEqual({
          error: 5030,
          message: expect.stringMatching(
            /^Not ready: the store has not answered for \d+ s/,
          ) as string,
        });

      await store.start();
      await harness.received(harness.topics.replies, 2);
      await expect
        .poll(async () => metric(await scrape(), 'plant_store_writer_consumer_lag'), {
          timeout: 15_000,
        })
        .toBe(0);
      expect(metric(await scrape(), 'plant_store_writer_commands_total', { outcome: '200' })).toBe(
        2,
      );
      await expect.poll(async () => (await fetch(`${url}/readyz`)).status).toBe(200);
    },
    60_000,
  );

  it('When the writer stops, then /readyz answers 503 at once while /healthz stays 200, and other paths 404 in the Error shape', async () => {
    const harness = await startTestWriter({ writer: false });
    const { writer, url } = await writerWithMetrics(writerOptions(harness));
    await expect.poll(async () => (await fetch(`${url}/readyz`)).status).toBe(200);

    const stopped = writer.stop();
    const readiness = await fetch(`${url}/readyz`);
    const ready = metric(
      parseMetrics(await (await fetch(`${url}/metrics`)).text()),
      'plant_store_writer_ready',
    );
    await stopped;

    expect(ready).toBe(0);
    expect(readiness.status).toBe(503);
    expect(readiness.headers.get('retry-after')).toBe('1');
    expect(await readiness.json()).toEqual({ error: 5030, message: 'Not ready: shutting down' });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const other = await fetch(`${url}/plants`);
    expect(other.status).toBe(404);
    expect(await other.json()).toEqual({ error: 4040, message: 'No route for GET /plants' });
  });
});
