import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createLogger } from '#shared/logger.ts';
import { attachGateway, SECOND_TOKEN, TOKEN } from '../support/servers/gateway.ts';
import {
  AUDIENCE,
  ISSUER,
  sign,
  signingKey,
  startJwksServer,
} from '../support/servers/jwks-server.ts';
import { exchange, rawRequest } from '../support/clients/raw-http.ts';
import { startTestWriter } from '../support/servers/writer.ts';

/** Every line a logger writes, as written. */
function capturedLogger(service: string) {
  const lines: string[] = [];
  const logger = createLogger(service, 'debug', {
    write: (line: string) => {
      lines.push(line);
    },
  });
  return { logger, lines };
}

/** A line as text, with the bytes of every Buffer it logged (`{ type: 'Buffer', data }`) decoded. */
function readable(line: string): string {
  const buffers: string[] = [];
  JSON.parse(line, (_key, value: unknown) => {
    const buffer = value as { type?: unknown; data?: unknown };
    if (buffer.type === 'Buffer' && Array.isArray(buffer.data)) {
      buffers.push(Buffer.from(buffer.data as number[]).toString('latin1'));
    }
    return value;
  });
  return [line, ...buffers].join('\n');
}

describe('Secrets in the logs', () => {
  it('When valid, invalid and misplaced tokens reach a gateway and its writer logging at debug, then no line of either holds any of them', async () => {
    const gatewayLogs = capturedLogger('gateway');
    const writerLogs = capturedLogger('writer');
    const key = await signingKey('rsa-1', 'RS256');
    const stranger = await signingKey('stranger', 'RS256');
    const jwks = await startJwksServer([key]);
    const harness = await startTestWriter({ logger: writerLogs.logger });
    const gateway = await attachGateway(harness, {
      logger: gatewayLogs.logger,
      jwt: {
        jwksUrl: jwks.url,
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['RS256'],
        clockToleranceS: 5,
      },
    });
    const jwt = await sign(key);
    const forged = await sign(stranger, {}, {});
    const expired = await sign(key, { exp: Math.floor(Date.now() / 1000) - 600 });
    const unknown = 'unknown-token-93c1f0';
    const basic = Buffer.from('operator:pa55word-7d2e').toString('base64');
    const secrets = [TOKEN, SECOND_TOKEN, jwt, forged, expired, unknown, basic, 'pa55word-7d2e'];
    const signatures = [jwt, forged, expired].map((token) => token.split('.')[2] ?? token);
    const body = (id: number) => `{"id": ${String(id)}, "name": "Rue"}`;
    const post = (id: number, headers: Record<string, string>, url = '/plants') =>
      gateway.request({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', ...headers },
        payload: body(id),
      });

    const answers = await Promise.all([
      post(1, { authorization: `Bearer ${TOKEN}` }),
      post(2, { authorization: `bearer ${SECOND_TOKEN}` }),
      post(3, { authorization: `Bearer ${jwt}` }),
      post(4, { authorization: `Bearer ${forged}` }),
      post(5, { authorization: `Bearer ${expired}` }),
      post(6, { authorization: `Bearer ${unknown}` }),
      post(7, { authorization: `Basic ${basic}` }),
      post(8, {}, `/plants?access_token=${TOKEN}&token=${jwt}`),
      post(9, { 'x-api-key': TOKEN, 'x-auth-token': jwt }),
      post(10, { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' }),
      gateway.request({
        method: 'POST',
        url: '/plants',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        payload: '{"id": 11',
      }),
    ]);
    await gateway.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = gateway.gateway.app.server.address() as AddressInfo;
    const malformed = await Promise.all([
      exchange(
        port,
        rawRequest(
          'POST /plants HTTP/1.1',
          {
            host: 'localhost',
            authorization: [`Bearer ${TOKEN}`, `Bearer ${jwt}`],
            'content-type': 'application/json',
            'content-length': String(body(12).length),
          },
          Buffer.from(body(12)),
        ),
      ),
      // Refused by Node's parser: the error it reports carries the raw bytes, token included.
      exchange(
        port,
        rawRequest('POST /plants HTTP/1.1', {
          host: 'localhost',
          authorization: `Bearer ${TOKEN}`,
          'x-broken\u0000': jwt,
        }),
      ),
    ]);

    expect(answers.map((answer) => answer.statusCode)).toEqual([
      200, 200, 200, 401, 401, 401, 401, 401, 401, 415, 400,
    ]);
    expect(malformed.map((answer) => answer?.status)).toEqual([401, 400]);
    await expect
      .poll(() => writerLogs.lines.filter((line) => line.includes('create command answered')))
      .toHaveLength(3);
    const lines = [...gatewayLogs.lines, ...writerLogs.lines].map(readable);
    expect(gatewayLogs.lines.length).toBeGreaterThan(answers.length * 2);
    for (const secret of [...secrets, ...signatures]) {
      expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    }
    // The lines are there, with what could hold a secret replaced.
    expect(lines).toContainEqual(expect.stringContaining('"url":"/plants?[Redacted]"'));
    expect(lines).toContainEqual(expect.stringContaining('"rawPacket":"[Redacted]"'));
  });
});
