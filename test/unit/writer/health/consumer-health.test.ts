import { describe, expect, it, onTestFinished } from 'vitest';
import { consumerHealth } from '#writer/health/consumer-health.ts';
import { startOpsPort } from '#writer/health/ops-port.ts';
import { writerMetrics } from '#writer/observability/metrics.ts';
import { createLogger } from '#shared/logger.ts';
import { fakeConsumer } from '#test/support/clients/fake-consumer.ts';

async function probes(health: ReturnType<typeof consumerHealth>) {
  const server = await startOpsPort(
    {
      metrics: writerMetrics({
        lags: () => Promise.resolve([]),
        ready: () => true,
        storeSilentMs: () => 0,
        storeRefusingMs: () => 0,
        storeRoundTripMs: () => undefined,
      }),
      ...health,
    },
    {
      host: '127.0.0.1',
      port: 0,
      logger: createLogger('writer', 'silent'),
      limits: { maxConnections: 64, headersTimeoutMs: 3_000, keepAliveTimeoutMs: 5_000 },
    },
  );
  onTestFinished(() => server.close());
  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, body: await response.json() };
  };
  return { healthz: () => get('/healthz'), readyz: () => get('/readyz') };
}

describe('The writer’s health and readiness, from its consumer’s events', () => {
  it('When the consumer joins, crashes and restarts, then /readyz follows it and /healthz stays 200', async () => {
    const { consumer, join, crash } = fakeConsumer();
    const { healthz, readyz } = await probes(consumerHealth(consumer));

    expect(await readyz()).toEqual({
      status: 503,
      body: { error: 5030, message: 'Not ready: not in the consumer group yet' },
    });
    join();
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
    crash(true, 'GROUP_AUTHORIZATION_FAILED');
    expect(await readyz()).toEqual({
      status: 503,
      body: {
        error: 5030,
        message: 'Not ready: the consumer is restarting after an error: GROUP_AUTHORIZATION_FAILED',
      },
    });
    expect(await healthz()).toEqual({ status: 200, body: { status: 'ok' } });
    join();
    expect((await readyz()).status).toBe(200);
  });

  it('When kafkajs gives up on the consumer, then the writer (which restarts it) is not ready and /healthz stays 200', async () => {
    const { consumer, join, crash } = fakeConsumer();
    const { healthz, readyz } = await probes(consumerHealth(consumer));
    join();

    crash(false, 'GROUP_AUTHORIZATION_FAILED');

    expect(await healthz()).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await readyz()).toEqual({
      status: 503,
      body: {
        error: 5030,
        message: 'Not ready: the consumer is restarting after an error: GROUP_AUTHORIZATION_FAILED',
      },
    });
  });

  it('When the writer is stopping, then a late group join does not make it ready again', async () => {
    const { consumer, join } = fakeConsumer();
    const health = consumerHealth(consumer);
    const { readyz } = await probes(health);
    join();

    health.stopping();
    join();

    expect(await readyz()).toEqual({
      status: 503,
      body: { error: 5030, message: 'Not ready: shutting down' },
    });
  });
});
