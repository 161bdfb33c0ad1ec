import { describe, expect, it } from 'vitest';
import { readReplyPartition } from '#shared/contracts/kafka.ts';
import { stringifyJson } from '#shared/contracts/json.ts';
import { decodeNewPlant } from '#shared/contracts/new-plant.ts';

const decode = (text: string) => decodeNewPlant(Buffer.from(text));

describe('NewPlant decoding, shared by the gateway and the writer', () => {
  it.each(['9223372036854775807', '-9223372036854775808', '9007199254740993', '0'])(
    'When id is %s, then it is kept with every digit',
    (id) => {
      const decoded = decode(`{"id": ${id}, "name": "Monstera"}`);

      expect(decoded).toEqual({ ok: true, plant: { id: BigInt(id), name: 'Monstera' } });
      expect(decoded.ok && stringifyJson(decoded.plant)).toBe(`{"id":${id},"name":"Monstera"}`);
    },
  );

  it.each([
    '9223372036854775808',
    '-9223372036854775809',
    '1.5',
    '"1"',
    '1e3',
    '1e30',
    'null',
    'true',
  ])('When id is %s, then it is refused with 4000 naming the int64 range', (id) => {
    expect(decode(`{"id": ${id}, "name": "Monstera"}`)).toEqual({
      ok: false,
      error: {
        error: 4000,
        message: 'id must be an integer from -9223372036854775808 to 9223372036854775807',
      },
    });
  });

  it.each([
    ['{"id": 1, "name": 123}', 'name'],
    ['{"id": 1, "name": "Ficus", "tag": null}', 'tag'],
    ['{"id": 1}', 'name'],
    ['{"name": "Ficus"}', 'id'],
    ['[1, 2]', 'Body'],
  ])('When the body is %s, then it is refused with 4000 about %s, never coerced', (body, field) => {
    const decoded = decode(body);

    expect(decoded).toMatchObject({ ok: false, error: { error: 4000 } });
    expect(!decoded.ok && decoded.error.message).toContain(field);
  });

  it('When the body has unknown properties, then they are dropped', () => {
    expect(
      decode('{"id": 7, "name": "Fern", "tag": "green", "price": 3, "nested": {"a": 1}}'),
    ).toEqual({
      ok: true,
      plant: { id: 7n, name: 'Fern', tag: 'green' },
    });
  });

  it.each([
    ['', 'Body is empty'],
    ['{"id": 1, "name": ', 'Body is not valid JSON'],
    ['{"id": 1, "name": "x", "__proto__": {"admin": true}}', 'forbidden prototype key'],
    [
      '{"id": 1, "name": "x", "constructor": {"prototype": {"admin": true}}}',
      'forbidden prototype key',
    ],
  ])('When the body is %j, then it is refused with 4001', (body, message) => {
    const decoded = decode(body);

    expect(decoded).toMatchObject({ ok: false, error: { error: 4001 } });
    expect(!decoded.ok && decoded.error.message).toContain(message);
  });

  it('When the body is not valid UTF-8, then it is refused with 4001', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"id": 1, "name": "'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);

    expect(decodeNewPlant(bytes)).toEqual({
      ok: false,
      error: { error: 4001, message: 'Body is not valid UTF-8' },
    });
  });

  it.each([
    ['repeats "id"', '{"id": 1, "name": "x", "id": 2}', 'Body repeats the member name "id"'],
    ['repeats "name" escaped', '{"id": 1, "name": "x", "\\u006eame": "y"}', 'member name "name"'],
    ['has a lone surrogate', '{"id": 1, "name": "\\ud800"}', 'unpaired UTF-16 surrogate'],
    ['nests 200 arrays', `[1, ${'['.repeat(200)}${']'.repeat(200)}]`, 'nests deeper than 128'],
  ])('When the body %s, then it is refused with 4001', (_what, body, message) => {
    const decoded = decode(body);

    expect(decoded).toMatchObject({ ok: false, error: { error: 4001 } });
    expect(!decoded.ok && decoded.error.message).toContain(message);
  });

  it('When the name or tag holds U+0000, then it is refused with 4000; in an unknown key it is dropped', () => {
    expect(decode('{"id": 1, "name": "a\\u0000b"}')).toEqual({
      ok: false,
      error: { error: 4000, message: 'name must not contain U+0000 (NUL)' },
    });
    expect(decode('{"id": 1, "name": "x", "tag": "\\u0000"}')).toMatchObject({ ok: false });
    expect(decode('{"id": 1, "name": "x", "a\\u0000": 1}')).toEqual({
      ok: true,
      plant: { id: 1n, name: 'x' },
    });
  });
});

describe('kafka_replyPartition header', () => {
  it.each([
    [Buffer.from([0, 0, 0, 2]), 2],
    [Buffer.from([0, 0, 1, 0]), 256],
    [Buffer.from('2'), 2],
    [Buffer.from('11'), 11],
    ['3', 3],
    [undefined, undefined],
    [Buffer.from('x'), undefined],
  ])('When it is %j, then the reply goes to partition %s', (header, partition) => {
    expect(readReplyPartition(header)).toBe(partition);
  });
});
