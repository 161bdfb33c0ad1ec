import { describe, expect, it } from 'vitest';
import {
  BODY_LIMIT_BYTES,
  commandsPublished,
  expectNothingPublished,
  startTestGateway,
  TOKEN,
} from '../support/servers/gateway.ts';

const INT64_MESSAGE = 'id must be an integer from -9223372036854775808 to 9223372036854775807';

describe('POST /plants refusals, each with an Error body and nothing published', () => {
  it('When the body is not a NewPlant, then 400/4000 says what is wrong, without coercion', async () => {
    const gateway = await startTestGateway();
    const cases: [string, string][] = [
      ['{"id": 9223372036854775808, "name": "x"}', INT64_MESSAGE],
      ['{"id": 1.5, "name": "x"}', INT64_MESSAGE],
      ['{"id": "1", "name": "x"}', INT64_MESSAGE],
      ['{"id": 1e30, "name": "x"}', INT64_MESSAGE],
      ['{"id": 1, "name": 123}', 'name'],
      ['{"id": 1, "name": "x", "tag": null}', 'tag'],
      ['{"name": "x"}', 'id'],
    ];

    for (const [body, message] of cases) {
      const response = await gateway.post(body);
      expect(response.statusCode, body).toBe(400);
      expect(response.json<{ error: number; message: string }>(), body).toMatchObject({
        error: 4000,
      });
      expect(response.json<{ message: string }>().message, body).toContain(message);
    }
    await expectNothingPublished(gateway);
  });

  it('When the body is not JSON, is empty or carries a prototype key, then 400/4001', async () => {
    const gateway = await startTestGateway();
    const bodies = ['{"id": 1,', '', '{"id": 1, "name": "x", "__proto__": {"a": 1}}', 'null'];

    const responses = await Promise.all(bodies.map((body) => gateway.post(body)));

    expect(
      responses.map((response) => [response.statusCode, response.json<{ error: number }>().error]),
    ).toEqual([
      [400, 4001],
      [400, 4001],
      [400, 4001],
      [400, 4000],
    ]);
    await expectNothingPublished(gateway);
  });

  it('When the bearer token is missing, malformed or unknown, then 401/4010 with WWW-Authenticate', async () => {
    const gateway = await startTestGateway();
    const body = '{"id": 5, "name": "x"}';

    const missing = await gateway.request({
      method: 'POST',
      url: '/plants',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    const basic = await gateway.post(body, {
      authorization: `Basic ${Buffer.from('a:b').toString('base64')}`,
    });
    const unknown = await gateway.post(body, { authorization: 'Bearer not-a-token' });
    const lowerCase = await gateway.post(body, { authorization: `bearer ${TOKEN}` });

    expect(missing.statusCode).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="plant-store"');
    expect(missing.json()).toEqual({ error: 4010, message: 'A bearer token is required' });
    for (const refused of [basic, unknown]) {
      expect(refused.statusCode).toBe(401);
      expect(refused.headers['www-authenticate']).toBe(
        'Bearer realm="plant-store", error="invalid_token"',
      );
      expect(refused.json()).toMatchObject({ error: 4010 });
    }
    expect(lowerCase.statusCode).toBe(200);
    expect(await commandsPublished(gateway)).toBe(1);
  });

  it('When the content type is not JSON or the body is too large, then 415/4150 and 413/4130', async () => {
    const gateway = await startTestGateway();

    const text = await gateway.post('{"id": 1, "name": "x"}', { 'content-type': 'text/plain' });
    const large = await gateway.post(JSON.stringify({ id: 1, name: 'x'.repeat(BODY_LIMIT_BYTES) }));

    expect([text.statusCode, text.json()]).toEqual([
      415,
      { error: 4150, message: 'Content-Type must be application/json' },
    ]);
    expect([large.statusCode, large.json()]).toEqual([
      413,
      { error: 4130, message: 'Body is larger than the limit' },
    ]);
    await expectNothingPublished(gateway);
  });

  it('When a path does not exist, then 404 with an Error body', async () => {
    const gateway = await startTestGateway();

    const response = await gateway.request({ method: 'GET', url: '/plants/1' });

    expect([response.statusCode, response.json()]).toEqual([
      404,
      { error: 4040, message: 'No route for GET /plants/1' },
    ]);
  });

  it('When another method is sent to /plants without a token, then 405/4050 with Allow: POST, not 401', async () => {
    const gateway = await startTestGateway();

    const response = await gateway.request({ method: 'GET', url: '/plants' });

    expect([response.statusCode, response.headers.allow, response.json()]).toEqual([
      405,
      'POST',
      { error: 4050, message: 'GET is not allowed on /plants; use POST' },
    ]);
    await expectNothingPublished(gateway);
  });
});
