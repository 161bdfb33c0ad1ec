import { createServer } from 'node:http';
import {
  exportJWK,
  generateKeyPair,
  SignJWT,
  type CryptoKey,
  type JWK,
  type JWTPayload,
} from 'jose';
import { listenForTest } from './loopback-server.ts';

export const ISSUER = 'https://issuer.plant-store.test';
export const AUDIENCE = 'plant-store';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export async function signingKey(
  kid: string,
  alg: 'RS256' | 'ES256' | 'EdDSA',
): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return {
    kid,
    alg,
    privateKey,
    publicKey,
    publicJwk: { ...(await exportJWK(publicKey)), kid, alg },
  };
}

/** A token from `key` for the configured issuer and audience, valid for 5 minutes unless `claims` says otherwise. */
export function sign(
  key: SigningKey,
  claims: JWTPayload = {},
  { exp = true } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'client-1',
    iat: now,
    ...(exp ? { exp: now + 300 } : {}),
    ...claims,
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .sign(key.privateKey);
}

/** A real HTTP JWKS endpoint on loopback, serving `keys` (mutable: rotate by pushing), counting fetches. */
export async function startJwksServer(keys: SigningKey[]) {
  let fetches = 0;
  const server = createServer((_request, response) => {
    fetches++;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: keys.map(({ publicJwk }) => publicJwk) }));
  });
  const port = await listenForTest(server);
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    keys,
    fetches: () => fetches,
  };
}
