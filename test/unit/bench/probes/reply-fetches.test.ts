import { describe, expect, it } from 'vitest';
import { fetchedBetween, replyFetchesIn } from '#bench/probes/reply-fetches.ts';

describe('The bench’s reading of a gateway’s reply fetches', () => {
  it('When the counters carry the service label, then their values are read, and two readings give what was fetched between them', () => {
    const reading = (records: number, bytes: number) =>
      replyFetchesIn(
        [
          '# HELP plant_store_gateway_replies_fetched_total Records the reply consumer fetched',
          '# TYPE plant_store_gateway_replies_fetched_total counter',
          `plant_store_gateway_replies_fetched_total{service="gateway"} ${String(records)}`,
          `plant_store_gateway_reply_bytes_fetched_total{service="gateway"} ${String(bytes)}`,
        ].join('\n'),
      );

    expect(reading(12, 3400)).toEqual({ records: 12, bytes: 3400 });
    expect(fetchedBetween([reading(12, 3400)], [reading(20, 5000)])).toEqual([
      { records: 8, bytes: 1600 },
    ]);
  });

  it('When a gateway does not count its fetches (an older one), then reading it fails, naming the counter', () => {
    expect(() => replyFetchesIn('plant_store_gateway_creates_total{code="200"} 3')).toThrow(
      "the gateway's /metrics has no plant_store_gateway_replies_fetched_total",
    );
  });
});
