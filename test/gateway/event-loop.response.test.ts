import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { commandsPublished, startTestGateway } from '../support/gateway.ts';

function blockEventLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

describe('A gateway whose event loop lags', () => {
  it('When the mean event-loop delay passes MAX_EVENT_LOOP_DELAY_MS, then creates get 503/5030 with Retry-After until it recovers, and /healthz stays 200', async () => {
    const gateway = await startTestGateway({ maxEventLoopDelayMs: 100, eventLoopSampleMs: 20 });
    const create = (id: number) => gateway.post(`{"id": ${id}, "name": "Fern"}`);

    blockEventLoop(400);
    await sleep(0);
    const [refused, health] = await Promise.all([create(1), gateway.request({ url: '/healthz' })]);

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
