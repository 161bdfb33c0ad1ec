import { describe, expect, it } from 'vitest';
import { createLogger } from '#shared/logger.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { ownToxiproxy, storeLink, writerOnStoreLink } from '../support/servers/gray-links.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import {
  namesAnswered200,
  produceBacklog,
  startTestWriter,
  writerOptions,
} from '../support/servers/writer.ts';

const BACKLOG = 40_000;
const STORE_DELAY_MS = 10;

describe.skipIf(localServersUnavailable)(
  'A writer whose store is far, started behind a backlog',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When commands piled up while no writer ran and its store is 10 ms away each way, then it takes the store for far and answers every one, all replies to one partition', async () => {
      const harness = await startTestWriter({ writer: false });
      const { topics } = harness;
      await produceBacklog(harness, BACKLOG);
      const link = await storeLink(await ownToxiproxy(), 'far-store');
      for (const stream of ['upstream', 'downstream'] as const)
        await link.faults.add({ type: 'latency', stream, attributes: { latency: STORE_DELAY_MS } });

      const writer = await writerOnStoreLink(
        link,
        writerOptions(harness, { logger: createLogger('writer', 'silent') }),
      );
      const replies = await harness.received(topics.replies, BACKLOG);

      const scraped = parseMetrics(await writer.metrics.registry.metrics());
      expect(metric(scraped, 'plant_store_writer_store_round_trip_seconds')).toBeGreaterThanOrEqual(
        (2 * STORE_DELAY_MS) / 1_000,
      );
      const answered = namesAnswered200(replies);
      expect(answered.size).toBe(BACKLOG);
      expect(metric(scraped, 'plant_store_writer_undeliverable_replies_total')).toBe(0);
    });
  },
);
