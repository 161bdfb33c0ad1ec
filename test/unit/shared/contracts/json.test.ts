import { describe, expect, it } from 'vitest';
import { parseJsonLosslessly } from '#shared/contracts/json.ts';

describe('Lossless JSON parsing', () => {
  it.each([
    [
      'integers only',
      '{"id":1,"n":[-0,9007199254740991],"o":{"e":2}}',
      { id: 1n, n: [0n, 9007199254740991n], o: { e: 2n } },
    ],
    [
      'a letter e or a dot inside strings only',
      '{"name":"1.5e3","tag":"e","id":3}',
      { name: '1.5e3', tag: 'e', id: 3n },
    ],
    [
      'an integer beyond ±2^53',
      '{"id":9007199254740993,"n":[1,-9223372036854775808]}',
      { id: 9007199254740993n, n: [1n, -9223372036854775808n] },
    ],
    [
      'a boolean beside an integer',
      '{"id":7,"ok":true,"no":false}',
      { id: 7n, ok: true, no: false },
    ],
    [
      'a fraction and an exponent beside an integer',
      '{"id":7,"f":1.5,"x":1e3}',
      { id: 7n, f: 1.5, x: 1000 },
    ],
    [
      'an integer beyond int64',
      '{"id":9223372036854775808,"n":1}',
      { id: 9223372036854775808, n: 1n },
    ],
    ['a number alone', '42', 42n],
    ['a string alone', '"4.2"', '4.2'],
  ])(
    'When the text has %s, then every integer literal within int64 is a bigint with every digit',
    (_what, text, parsed) => {
      expect(parseJsonLosslessly(text)).toEqual(parsed);
    },
  );

  it.each([
    ['a key', '{"\\ud800":1}'],
    ['a string value', '{"id":1,"name":"\\udfff"}'],
    ['a string in an array', '{"id":1,"tags":["a","\\ud800"]}'],
    ['a string beside a fraction', '{"f":1.5,"name":"\\ud800"}'],
  ])('When %s carries an unpaired surrogate, then the text is refused', (_where, text) => {
    expect(() => parseJsonLosslessly(text)).toThrow('unpaired UTF-16 surrogate');
  });

  it.each([
    ['an escaped name', '{"id":1,"n\\u0061me":"x","name":"y"}', 'name'],
    ['a plain name', '{"id":1,"id":2}', 'id'],
  ])('When an object repeats %s, then the text is refused naming it', (_what, text, name) => {
    expect(() => parseJsonLosslessly(text)).toThrow(`Body repeats the member name "${name}"`);
  });
});
