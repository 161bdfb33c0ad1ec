import { hash, timingSafeEqual } from 'node:crypto';
import type { TokenVerifier } from './bearer-auth.ts';

const digest = (token: string) => hash('sha256', token, 'buffer');

/**
 * Static API tokens, kept and compared only as SHA-256 digests in constant time, so neither a
 * token nor its length leaks through timing. The one-shot `hash` spares each request the Hash
 * stream object `createHash` builds.
 */
export function staticTokenVerifier(tokens: readonly string[]): TokenVerifier {
  const known = tokens.map(digest);
  return (token) => {
    const candidate = digest(token);
    let match = false;
    for (const digestOfKnown of known) match = timingSafeEqual(candidate, digestOfKnown) || match;
    return Promise.resolve(match);
  };
}
