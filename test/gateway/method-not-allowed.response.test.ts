import { METHODS } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  BODY_LIMIT_BYTES,
  expectNothingPublished,
  startTestGateway,
  TOKEN,
  type GatewayHarness,
} from '../support/servers/gateway.ts';
import { metric, parseMetrics } from '../support/checks/metrics.ts';
import {
  exchange,
  rawRequest,
  type RawHeaders,
  type RawResponse,
} from '../support/clients/raw-http.ts';

const HOST = 'gateway.test';
/** CONNECT asks for a tunnel and is 404/4040; HEAD's answer has no body and a test of its own. */
const ANSWERED_WITH_A_BODY = METHODS.filter(
  (method) => !['POST', 'CONNECT', 'HEAD'].includes(method),
);

/** A gateway listening on a port of its own, so that answers are read as a client reads them. */
async function listeningGateway(): Promise<GatewayHarness & { port: number }> {
  const harness = await startTestGateway();
  await harness.gateway.app.listen({ port: 0, host: '127.0.0.1' });
  return { ...harness, port: (harness.gateway.app.server.address() as AddressInfo).port };
}

/** A request without a token unless given one, on a connection the gateway closes after it. */
function send(
  port: number,
  method: string,
  target = '/plants',
  headers: RawHeaders = {},
  body = '',
): Promise<RawResponse | undefined> {
  return exchange(
    port,
    rawRequest(
      `${method} ${target} HTTP/1.1`,
      {
        host: HOST,
        connection: 'close',
        ...(body === '' ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        ...headers,
      },
      Buffer.from(body),
    ),
  );
}

/** What a client sees of a refusal: status, Allow, content type and body. */
function seen(method: string, response: RawResponse | undefined) {
  return {
    method,
    status: response?.status,
    allow: response?.headers.allow,
    contentType: response?.headers['content-type'],
    body: response?.body === undefined ? undefined : (JSON.parse(response.body) as unknown),
  };
}

const methodNotAllowed = (method: string) => ({
  method,
  status: 405,
  allow: 'POST',
  contentType: 'application/json; charset=utf-8',
  body: { error: 4050, message: `${method} is not allowed on /plants; use POST` },
});

describe('Methods other than POST on /plants', () => {
  it('When any method Node accepts but POST is sent to /plants without a token, then 405 with Allow: POST and a 4050 Error naming the method, and nothing is published', async () => {
    const gateway = await listeningGateway();

    const answers = [];
    for (const method of ANSWERED_WITH_A_BODY)
      answers.push(seen(method, await send(gateway.port, method)));

    expect(ANSWERED_WITH_A_BODY).toEqual(
      expect.arrayContaining(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'QUERY']),
    );
    expect(answers).toEqual(ANSWERED_WITH_A_BODY.map(methodNotAllowed));
    await expectNothingPublished(gateway);
  });

  it('When HEAD /plants is sent, then 405 with Allow: POST and no body', async () => {
    const gateway = await listeningGateway();

    const response = await send(gateway.port, 'HEAD');

    expect(response?.status).toBe(405);
    expect(response?.headers.allow).toBe('POST');
    expect(response?.body).toBe('');
  });

  it('When such a method comes with a bad token, a text body, a body over the limit or no Content-Type, then still 405/4050: the method is checked before the token and the body', async () => {
    const gateway = await listeningGateway();

    const answers = [
      seen('PUT', await send(gateway.port, 'PUT', '/plants', { authorization: 'Bearer wrong' })),
      seen(
        'PUT',
        await send(gateway.port, 'PUT', '/plants', { 'content-type': 'text/plain' }, 'a plant'),
      ),
      seen(
        'PATCH',
        await send(
          gateway.port,
          'PATCH',
          '/plants',
          { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          JSON.stringify({ id: 1, name: 'x'.repeat(BODY_LIMIT_BYTES) }),
        ),
      ),
      seen('QUERY', await send(gateway.port, 'QUERY', '/plants', {}, '{"id": 1}')),
      seen(
        'DELETE',
        await send(gateway.port, 'DELETE', '/plants?id=1', { authorization: `Bearer ${TOKEN}` }),
      ),
    ];

    expect(answers).toEqual(['PUT', 'PUT', 'PATCH', 'QUERY', 'DELETE'].map(methodNotAllowed));
    await expectNothingPublished(gateway);
  });

  it('When a path does not exist, then 404/4040 without Allow, whatever the method', async () => {
    const gateway = await listeningGateway();
    const cases = [
      ['GET', '/plants/'],
      ['POST', '/PLANTS'],
      ['PUT', '/plants/1'],
      ['PROPFIND', '/nope'],
    ] as const;

    const answers = [];
    for (const [method, target] of cases) {
      answers.push(seen(method, await send(gateway.port, method, target)));
    }

    expect(answers).toEqual(
      cases.map(([method, target]) => ({
        method,
        status: 404,
        allow: undefined,
        contentType: 'application/json; charset=utf-8',
        body: { error: 4040, message: `No route for ${method} ${target}` },
      })),
    );
  });

  it('When 405s are answered, then they are timed under the route /plants, not under their URLs, and are not counted as creates', async () => {
    const gateway = await listeningGateway();

    for (const target of ['/plants', '/plants?a=1', '/plants?a=2']) {
      expect((await send(gateway.port, 'GET', target))?.status).toBe(405);
    }
    expect((await send(gateway.port, 'PROPFIND'))?.status).toBe(405);
    const samples = parseMetrics((await gateway.request({ method: 'GET', url: '/metrics' })).body);

    const answered = (labels: Record<string, string>) =>
      metric(samples, 'plant_store_http_request_duration_seconds_count', labels);
    expect(answered({ method: 'GET', route: '/plants', status_code: '405' })).toBe(3);
    expect(answered({ method: 'PROPFIND', route: '/plants', status_code: '405' })).toBe(1);
    expect(metric(samples, 'plant_store_gateway_creates_total')).toBe(0);
  });
});
