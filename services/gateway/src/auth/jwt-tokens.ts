import { createPublicKey } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey, type KeyObject } from 'jose';
import type { TokenVerifier } from './bearer-auth.ts';

export interface JwtOptions {
  /** A JWKS endpoint, fetched lazily and cached; exactly one of this and `publicKeyPem`. */
  jwksUrl?: string | undefined;
  publicKeyPem?: string | undefined;
  issuer: string;
  audience: string;
  /** Asymmetric algorithms only: an HS* token signed with a public key must never verify. */
  algorithms: readonly string[];
  clockToleranceS: number;
  /** After a fetch, how long an unknown `kid` waits before it may trigger the next one. */
  jwksCooldownMs?: number;
}

/**
 * JWT bearer tokens checked with jose: signature by a key of the JWKS (refetched once when a
 * token names an unknown `kid`, at most once per cooldown) or by the configured public key;
 * algorithm from the allow-list (never `none`, never HMAC); `iss`, `aud` and `exp` required;
 * `nbf` honoured; clocks may differ by the tolerance.
 */
export function jwtVerifier(options: JwtOptions): TokenVerifier {
  const key: JWTVerifyGetKey | KeyObject =
    options.jwksUrl === undefined
      ? createPublicKey(options.publicKeyPem ?? '')
      : createRemoteJWKSet(new URL(options.jwksUrl), {
          cooldownDuration: options.jwksCooldownMs ?? 30_000,
          cacheMaxAge: 10 * 60_000,
          timeoutDuration: 2_000,
        });
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms: [...options.algorithms],
    clockTolerance: options.clockToleranceS,
    requiredClaims: ['exp'],
  };
  return async (token) => {
    try {
      await jwtVerify(token, key, verifyOptions);
      return true;
    } catch {
      return false;
    }
  };
}
