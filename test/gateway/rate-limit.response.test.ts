import { describe, expect, it } from 'vitest';
import { commandsPublished, SECOND_TOKEN, startTestGateway } from '../support/servers/gateway.ts';

describe('Rate limit per token', () => {
  it('When a token exceeds RATE_LIMIT_PER_MINUTE, then 429/4290 with Retry-After and nothing published, while another token still passes', async () => {
    const gateway = await startTestGateway({ rateLimitPerMinute: 3 });
    const create = (id: number, headers = {}) =>
      gateway.post(`{"id": ${id}, "name": "Fern"}`, headers);

    const allowed = await Promise.all([1, 2, 3].map((id) => create(id)));
    const limited = await create(4);
    const sameTokenOtherCase = await create(5, { authorization: `bearer test-token-6a1f` });
    const otherToken = await create(6, { authorization: `Bearer ${SECOND_TOKEN}` });
    const unknownToken = await create(7, { authorization: 'Bearer nobody' });

    expect(allowed.map(({ statusCode }) => statusCode)).toEqual([200, 200, 200]);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({
      error: 4290,
      message: 'More than 3 creates a minute for this token; retry in 1 minute',
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(sameTokenOtherCase.statusCode).toBe(429);
    expect(otherToken.statusCode).toBe(200);
    expect(unknownToken.statusCode).toBe(401);
    expect(await commandsPublished(gateway)).toBe(4);
  });

  it('When no limit is configured, then a token is not limited', async () => {
    const gateway = await startTestGateway();

    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        gateway.post(`{"id": ${100 + index}, "name": "Fern"}`),
      ),
    );

    expect(answers.every(({ statusCode }) => statusCode === 200)).toBe(true);
  });
});
