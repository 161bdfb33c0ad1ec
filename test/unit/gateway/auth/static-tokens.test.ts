import { createHash, timingSafeEqual } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { staticTokenVerifier } from '#gateway/auth/static-tokens.ts';

// The namespace of node:crypto cannot be spied on (ESM exports are not configurable): the
// module is mocked with the real functions, timingSafeEqual wrapped to record its calls.
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  return { ...crypto, timingSafeEqual: vi.fn(crypto.timingSafeEqual) };
});
const comparisons = vi.mocked(timingSafeEqual);

const sha256 = (text: string) => createHash('sha256').update(text).digest();

// Three lengths, one of them not ASCII, so a length check could not stand in for the digests.
const TOKENS = ['test-token-6a1f', 'second-token', `long-${'x'.repeat(200)}-\u00e9t\u00e9`];
const verify = staticTokenVerifier(TOKENS);

beforeEach(() => {
  comparisons.mockClear();
});

describe('staticTokenVerifier', () => {
  it.each([
    ['first', TOKENS[0] ?? ''],
    ['second', TOKENS[1] ?? ''],
    ['third (long, not ASCII)', TOKENS[2] ?? ''],
  ])('When the %s configured token is sent, then it is accepted', async (_which, token) => {
    await expect(verify(token)).resolves.toBe(true);
  });

  it.each([
    ['a prefix of a token', TOKENS[0]?.slice(0, -1)],
    ['a token with one character changed', 'test-token-6a1e'],
    ['a token with one character more', `${TOKENS[1] ?? ''}x`],
    ['a token in another case', TOKENS[1]?.toUpperCase()],
    ['an empty token', ''],
    ['two tokens run together', TOKENS.join('')],
  ])('When %s is sent, then it is refused', async (_what, token = '') => {
    await expect(verify(token)).resolves.toBe(false);
  });

  it.each([
    ['one character', 'a'],
    ['64 KiB', 'y'.repeat(65_536)],
    ['a length no configured token has', 'z'.repeat(TOKENS[0]?.length ?? 0) + 'zz'],
  ])(
    'When a token of %s is sent, then it is refused without throwing (digests all have one length)',
    async (_what, token) => {
      await expect(verify(token)).resolves.toBe(false);
      expect(
        comparisons.mock.calls.map(([candidate, known]) => [
          candidate.byteLength,
          known.byteLength,
        ]),
      ).toEqual(TOKENS.map(() => [32, 32]));
    },
  );

  it.each([
    ['the first configured token', TOKENS[0] ?? ''],
    ['the last configured token', TOKENS[2] ?? ''],
    ['an unknown token', 'unknown-token'],
  ])(
    'When %s is sent, then its digest is compared in constant time with every configured token, not only up to a match',
    async (_what, token) => {
      await verify(token);

      expect(comparisons).toHaveBeenCalledTimes(TOKENS.length);
      const compared = comparisons.mock.calls.map(([candidate, known]) => [
        Buffer.from(candidate as Uint8Array).toString('hex'),
        Buffer.from(known as Uint8Array).toString('hex'),
      ]);
      expect(compared).toEqual(
        TOKENS.map((known) => [sha256(token).toString('hex'), sha256(known).toString('hex')]),
      );
    },
  );

  it('When no token is configured, then nothing is accepted, not even an empty token', async () => {
    const none = staticTokenVerifier([]);

    await expect(none('')).resolves.toBe(false);
    await expect(none(TOKENS[0] ?? '')).resolves.toBe(false);
  });
});
