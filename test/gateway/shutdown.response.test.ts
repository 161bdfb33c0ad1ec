import { describe, expect, it } from 'vitest';
import { attachGateway, TOKEN } from '../support/gateway.ts';
import { startTestWriter } from '../support/writer.ts';

describe('Gateway shut down under load', () => {
  it('When it is stopped while requests wait for replies, then every accepted request is answered', async () => {
    const harness = await startTestWriter();
    const { gateway } = await attachGateway(harness);
    const address = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const ids = Array.from({ length: 30 }, (_, index) => 5_000 + index);

    const responses = ids.map((id) =>
      fetch(`${address}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: `Plant ${id}` }),
      }),
    );
    await harness.received(harness.topics.create, ids.length);
    const stopped = gateway.stop();

    const answers = await Promise.all(responses.map(async (response) => (await response).status));
    await stopped;
    expect(answers).toEqual(ids.map(() => 200));
    await expect(fetch(`${address}/healthz`)).rejects.toThrow();
  });
});

describe('Gateway while it stops', () => {
  it('When a request arrives after the shutdown began, then 503/5030 with Retry-After, in the Error shape', async () => {
    const harness = await startTestWriter({ writer: false });
    const { gateway } = await attachGateway(harness);

    const stopped = gateway.stop();
    const response = await gateway.app.inject({ method: 'GET', url: '/readyz' });
    await stopped;

    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({
      error: 5030,
      message: 'Shutting down; retry on another instance',
    });
  });
});
