import { describe, expect, it } from 'vitest';
import { postPlant } from '../support/clients/http-client.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import { aPlant } from '../support/clients/plants.ts';
import { gatewayMetricsUrl, serviceProcesses } from '../support/servers/services.ts';
import { startTestWriter } from '../support/servers/writer.ts';

describe('A gateway process with METRICS_PORT', () => {
  it('When creates are answered, then its metrics port serves their counts and the probes, and its API port serves no /metrics: 404 in the Error shape', async () => {
    const services = serviceProcesses(await startTestWriter());
    const { process: gateway, url } = await services.startGateway('gateway', {
      METRICS_PORT: '0',
    });
    // The metrics port opens once the API port listens.
    await expect.poll(() => gatewayMetricsUrl(gateway)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const metricsUrl = gatewayMetricsUrl(gateway);
    const plant = aPlant();

    const created = await postPlant(url, plant.body);
    const scraped = await fetch(`${metricsUrl}/metrics`);
    const samples = parseMetrics(await scraped.text());
    const onApiPort = await fetch(`${url}/metrics`);

    expect(created).toMatchObject({ status: 200 });
    expect(scraped.status).toBe(200);
    expect(metric(samples, 'plant_store_gateway_creates_total', { code: '200' })).toBe(1);
    expect(metric(samples, 'plant_store_metrics_http_max_connections')).toBe(64);
    expect(metric(samples, 'plant_store_http_max_connections')).toBeGreaterThan(64);
    expect(onApiPort.status).toBe(404);
    expect(await onApiPort.json()).toMatchObject({ error: 4040 });
    expect((await fetch(`${metricsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200);
    expect((await fetch(`${metricsUrl}/plants`, { method: 'POST' })).status).toBe(404);
  });
});
