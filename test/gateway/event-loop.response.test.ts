import { describe, expect, it, onTestFinished } from 'vitest';
import { commandsPublished, startTestGateway } from '../support/servers/gateway.ts';

/** Blocks the event loop for `ms` out of every `ms + 10`, until stopped. */
function keepEventLoopLagging(ms: number): () => void {
  const timer = setInterval(() => {
    const until = Date.now() + ms;
    while (Date.now() < until);
  }, 10);
  const stop = () => {
    clearInterval(timer);
  };
  onTestFinished(stop);
  return stop;
}

describe('A gateway whose event loop lags', () => {
  it('When the mean event-loop delay passes MAX_EVENT_LOOP_DELAY_MS, then creates get 503/5030 with Retry-After until it recovers, and /healthz stays 200', async () => {
    const gateway = await startTestGateway({ maxEventLoopDelayMs: 100, eventLoopSampleMs: 20 });
    const create = (id: number) => gateway.post(`{"id": ${id}, "name": "Fern"}`);

    // A lag that lasts, not one spike: a single block is seen for one sample (20 ms) only.
    const stopLagging = keepEventLoopLagging(250);
    await expect.poll(() => gateway.gateway.app.isUnderPressure(), { timeout: 10_000 }).toBe(true);
    const [refused, health] = await Promise.all([create(1), gateway.request({ url: '/healthz' })]);
    stopLagging();

    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({
      error: 5030,
      message: 'Overloaded: the event loop lags more than 100 ms; retry shortly',
    });
    expect(health.statusCode).toBe(200);
    expect(await commandsPublished(gateway)).toBe(0);

    await expect.poll(async () => (await create(2)).statusCode).toBe(200);
  });
});
