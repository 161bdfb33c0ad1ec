import { createHmac } from 'node:crypto';
import { exportSPKI } from 'jose';
import { describe, expect, it } from 'vitest';
import { expectNothingPublished, startTestGateway } from '../support/servers/gateway.ts';
import {
  AUDIENCE,
  ISSUER,
  sign,
  signingKey,
  startJwksServer,
  type SigningKey,
} from '../support/servers/jwks-server.ts';

const base64url = (value: object | string) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';
const body = (id: number) => `{"id": ${id}, "name": "Fern"}`;

async function jwtGateway(keys: SigningKey[], jwksCooldownMs = 30_000) {
  const jwks = await startJwksServer(keys);
  const gateway = await startTestGateway({
    jwt: {
      jwksUrl: jwks.url,
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['RS256', 'ES256', 'EdDSA'],
      clockToleranceS: 5,
      jwksCooldownMs,
    },
  });
  const post = (token: string, id: number, scheme = 'Bearer') =>
    gateway.post(body(id), { authorization: `${scheme} ${token}` });
  return { gateway, jwks, post };
}

describe('JWT bearer tokens against a real JWKS endpoint', () => {
  it('When a token is signed with RS256, ES256 or EdDSA by a key of the JWKS, then 200, whatever the case of "bearer"', async () => {
    const [rsa, ec, ed] = await Promise.all([
      signingKey('rsa-1', 'RS256'),
      signingKey('ec-1', 'ES256'),
      signingKey('ed-1', 'EdDSA'),
    ]);
    const { post } = await jwtGateway([rsa, ec, ed]);

    const answers = await Promise.all([
      post(await sign(rsa), 1),
      post(await sign(ec), 2),
      post(await sign(ed), 3),
      post(await sign(rsa), 4, 'bearer'),
    ]);

    expect(answers.map((answer) => [answer.statusCode, answer.json<unknown>()])).toEqual(
      [1, 2, 3, 4].map(() => [200, { name: 'Fern' }]),
    );
  });

  it('When a token is forged, stale, for someone else or sent the wrong way, then 401/4010 with an RFC 6750 challenge and nothing is published', async () => {
    const key = await signingKey('rsa-1', 'RS256');
    const stranger = await signingKey('stranger', 'RS256');
    const { gateway, post } = await jwtGateway([key]);
    const now = Math.floor(Date.now() / 1000);
    const valid = await sign(key);
    const [header, payload, signature] = valid.split('.') as [string, string, string];
    const publicPem = await exportSPKI(key.publicKey);
    const hmacHeader = base64url({ alg: 'HS256', kid: key.kid, typ: 'JWT' });
    const hmacPayload = base64url({ iss: ISSUER, aud: AUDIENCE, exp: now + 300 });
    const hmacSigned = `${hmacHeader}.${hmacPayload}.${createHmac('sha256', publicPem).update(`${hmacHeader}.${hmacPayload}`).digest('base64url')}`;

    const forged: [string, string][] = [
      [
        'alg none',
        `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ iss: ISSUER, aud: AUDIENCE, exp: now + 300 })}.`,
      ],
      ['HS256 signed with the public key', hmacSigned],
      ['expired', await sign(key, { exp: now - 60 })],
      ['not yet valid', await sign(key, { nbf: now + 60 })],
      ['wrong issuer', await sign(key, { iss: 'https://elsewhere.test' })],
      ['wrong audience', await sign(key, { aud: 'another-service' })],
      ['no exp', await sign(key, {}, { exp: false })],
      ['unknown kid', await sign(stranger)],
      [
        'tampered payload',
        `${header}.${base64url({ iss: ISSUER, aud: AUDIENCE, exp: now + 300, sub: 'admin' })}.${signature}`,
      ],
      [
        'tampered signature',
        `${header}.${payload}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`,
      ],
    ];
    for (const [what, token] of forged) {
      const answer = await post(token, 10);
      expect(answer.statusCode, what).toBe(401);
      expect(answer.headers['www-authenticate'], what).toBe(INVALID_TOKEN);
      expect(answer.json(), what).toEqual({
        error: 4010,
        message: 'The bearer token is missing, malformed or not valid',
      });
    }

    const basic = await post(Buffer.from('client:secret').toString('base64'), 11, 'Basic');
    expect([basic.statusCode, basic.headers['www-authenticate']]).toEqual([401, INVALID_TOKEN]);
    const inQuery = await gateway.request({
      method: 'POST',
      url: `/plants?access_token=${valid}`,
      headers: { 'content-type': 'application/json' },
      payload: body(12),
    });
    expect([inQuery.statusCode, inQuery.headers['www-authenticate'], inQuery.json()]).toEqual([
      401,
      'Bearer realm="plant-store"',
      { error: 4010, message: 'A bearer token is required' },
    ]);
    const twoHeaders = await gateway.request({
      method: 'POST',
      url: '/plants',
      headers: {
        'content-type': 'application/json',
        // Any casing: the raw headers keep both lines, as Node's server does.
        Authorization: [`Bearer ${valid}`, `Bearer ${valid}`],
      },
      payload: body(13),
    });
    expect([
      twoHeaders.statusCode,
      twoHeaders.headers['www-authenticate'],
      twoHeaders.json(),
    ]).toEqual([
      401,
      'Bearer realm="plant-store", error="invalid_request"',
      { error: 4010, message: 'Send exactly one Authorization header' },
    ]);
    await expectNothingPublished(gateway);
  });

  it('When the issuer rotates its keys, then a new kid triggers one refetch, and unknown kids do not refetch during the cooldown', async () => {
    const first = await signingKey('rsa-1', 'RS256');
    // Made before, so that only the posts fall within the cooldown after the rotation's refetch:
    // generating RSA keys took more than its 1 s on a loaded machine.
    const strangers = await Promise.all([signingKey('x-1', 'RS256'), signingKey('x-2', 'RS256')]);
    const strangersTokens = await Promise.all(strangers.map((key) => sign(key)));
    const { jwks, post } = await jwtGateway([first], 1_000);
    expect((await post(await sign(first), 20)).statusCode).toBe(200);
    expect(jwks.fetches()).toBe(1);

    const rotated = await signingKey('rsa-2', 'RS256');
    jwks.keys.push(rotated);
    const token = await sign(rotated);
    // Refused without a refetch until the 1 s cooldown since the first fetch has passed.
    await expect
      .poll(async () => (await post(token, 21)).statusCode, { interval: 100, timeout: 10_000 })
      .toBe(200);
    expect(jwks.fetches()).toBe(2);

    const refused = await Promise.all(
      strangersTokens.map((stranger, index) => post(stranger, 30 + index)),
    );
    expect(refused.map(({ statusCode }) => statusCode)).toEqual([401, 401]);
    expect(jwks.fetches()).toBe(2);
  });

  it('When configured with a PEM public key instead of a JWKS, then tokens of that key pass and others do not', async () => {
    const [key, other] = await Promise.all([
      signingKey('pem', 'ES256'),
      signingKey('pem', 'ES256'),
    ]);
    const gateway = await startTestGateway({
      jwt: {
        publicKeyPem: await exportSPKI(key.publicKey),
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['ES256'],
        clockToleranceS: 5,
      },
    });

    const accepted = await gateway.post(body(40), { authorization: `Bearer ${await sign(key)}` });
    const refused = await gateway.post(body(41), { authorization: `Bearer ${await sign(other)}` });

    expect([accepted.statusCode, refused.statusCode]).toEqual([200, 401]);
  });
});
