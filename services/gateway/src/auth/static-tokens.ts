import { createHash, timingSafeEqual } from 'node:crypto';
import type { TokenVerifier } from './bearer-auth.ts';

const digest = (token: string) => createHash('sha256').update(token).digest();

/**
 * Static API tokens, kept and compared only as SHA-256 digests in constant time, so neither a
 * token nor its length leaks through timing.
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
