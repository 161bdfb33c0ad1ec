import { describe, expect, it } from 'vitest';
import { sampleValue, seriesOf } from '#chaos/observe/scrape.ts';

describe("What a chaos run's scrape keeps of a /metrics page", () => {
  it('When a page is scraped, then the series kept carry the instance beside their own labels, comments and other series are left out', () => {
    const page = [
      '# HELP plant_store_writer_ready 1 while the writer takes commands',
      '# TYPE plant_store_writer_ready gauge',
      'plant_store_writer_ready{service="writer"} 0',
      'plant_store_writer_store_refusing_seconds 12.5',
      'nodejs_heap_size_total_bytes{service="writer"} 123456',
      'plant_store_writer_store_silent_seconds{service="writer"} NaN',
    ].join('\n');
    const kept = new Set([
      'plant_store_writer_ready',
      'plant_store_writer_store_refusing_seconds',
      'plant_store_writer_store_silent_seconds',
    ]);

    expect(seriesOf(page, '127.0.0.1:9464', (name) => kept.has(name))).toEqual([
      ['plant_store_writer_ready{instance="127.0.0.1:9464",service="writer"}', 0],
      ['plant_store_writer_store_refusing_seconds{instance="127.0.0.1:9464"}', 12.5],
    ]);
  });

  it('When one sample is read by name and labels, then it is the first whose labels include them, NaN when none', () => {
    const page = [
      '# TYPE plant_store_gateway_creates_total counter',
      'plant_store_gateway_creates_total{code="200",service="gateway"} 129209',
      'plant_store_gateway_creates_total{code="5030",service="gateway"} 100088',
      'plant_store_http_max_connections 3242',
    ].join('\n');

    expect(sampleValue(page, 'plant_store_gateway_creates_total', { code: '5030' })).toBe(100_088);
    expect(sampleValue(page, 'plant_store_http_max_connections')).toBe(3_242);
    expect(sampleValue(page, 'plant_store_gateway_creates_total', { code: '5040' })).toBeNaN();
  });
});
