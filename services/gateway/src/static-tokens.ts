import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (token: string) => createHash('sha256').update(token).digest();

/**
 * Static API tokens, kept and compared only as SHA-256 digests in constant time, so neither a
 * token nor its length leaks through timing.
 */
export function staticTokenVerifier(tokens: readonly string[]): (token: string) => boolean {
  const known = tokens.map(digest);
  return (token) => {
    const candidate = digest(token);
    let match = false;
    for (const digestOfKnown of known) match = timingSafeEqual(candidate, digestOfKnown) || match;
    return match;
  };
}
