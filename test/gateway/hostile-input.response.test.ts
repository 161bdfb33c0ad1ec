import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plant } from '#shared/contracts/plant.ts';
import { attachGateway, commandsPublished, TOKEN } from '../support/servers/gateway.ts';
import {
  exchange,
  rawRequest,
  type RawHeaders,
  type RawRequest,
} from '../support/clients/raw-http.ts';
import { startTestWriter, type WriterHarness } from '../support/servers/writer.ts';

const BODY_LIMIT = 65_536;
const REQUEST_TIMEOUT_MS = 1_000;
const DEEP = 10_000;
const HOST = 'gateway.test';
const FERN = '{"id": 1, "name": "Fern"}';
const SLOW = '{"id": 6001, "name": "Slow"}';

type Expected = { status: number; error: number } | { status: 200; id: string; plant: Plant };
type Case = [what: string, request: RawRequest, expected: Expected];

const refused = (status: number, error: number): Expected => ({ status, error });
const accepted = (id: string, plant: Plant = { name: 'Fern' }): Expected => ({
  status: 200,
  id,
  plant,
});
const NOT_A_PLANT = refused(400, 4000);
const NOT_JSON = refused(400, 4001);
const MALFORMED_HTTP = refused(400, 4002);
const UNAUTHORIZED = refused(401, 4010);
const NO_ROUTE = refused(404, 4040);
const METHOD_NOT_ALLOWED = refused(405, 4050);
const TIMED_OUT = refused(408, 4080);
const TOO_LARGE = refused(413, 4130);
const NOT_JSON_MEDIA = refused(415, 4150);
const EXPECTATION_FAILED = refused(417, 4170);
const HEADERS_TOO_LARGE = refused(431, 4310);

/** POST /plants with a valid token, JSON content type and exact Content-Length, unless overridden. */
function post(body: string | Buffer, headers: RawHeaders = {}, target = '/plants'): Buffer {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return rawRequest(
    `POST ${target} HTTP/1.1`,
    {
      host: HOST,
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'content-length': String(payload.length),
      connection: 'close',
      ...headers,
    },
    payload,
  );
}

/** A bodiless request with a valid token. */
function call(method: string, target = '/plants', headers: RawHeaders = {}): Buffer {
  return rawRequest(`${method} ${target} HTTP/1.1`, {
    host: HOST,
    authorization: `Bearer ${TOKEN}`,
    connection: 'close',
    ...headers,
  });
}

const chunked = (body: string, headers: RawHeaders = {}) =>
  post(body, { 'content-length': undefined, 'transfer-encoding': 'chunked', ...headers });
/** The first `sent` bytes at once, the rest one byte every 250 ms. */
const trickled = (request: Buffer, sent: number): RawRequest => ({
  head: request.subarray(0, sent),
  trickle: request.subarray(sent),
  everyMs: 250,
});
const headEnd = (request: Buffer) => request.indexOf('\r\n\r\n') + 4;
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => Buffer.from(part)));
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
const utf32le = (text: string) =>
  Buffer.concat(
    Array.from(text, (char) => {
      const unit = Buffer.alloc(4);
      unit.writeUInt32LE(char.codePointAt(0) ?? 0);
      return unit;
    }),
  );
const latin1 = (text: string) => Buffer.from(text, 'latin1');
/** A name made of these raw bytes. */
const nameOfBytes = (...raw: number[]) => post(bytes('{"id": 1, "name": "', raw, '"}'));
const withId = (id: string) => `{"id": ${id}, "name": "Fern"}`;
const withName = (name: string) => `{"id": 1, "name": "${name}"}`;
const withExtra = (member: string) => `{"id": 1, "name": "Fern", ${member}}`;
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const CORPUS: Record<string, Case[]> = {
  encodings: [
    ['the body is UTF-16LE with a BOM', post(Buffer.from(`\ufeff${FERN}`, 'utf16le')), NOT_JSON],
    ['the body is UTF-16BE with a BOM', post(utf16be(`\ufeff${FERN}`)), NOT_JSON],
    ['the body is UTF-16LE without a BOM', post(Buffer.from(FERN, 'utf16le')), NOT_JSON],
    ['the body is UTF-32LE with a BOM', post(utf32le(`\ufeff${FERN}`)), NOT_JSON],
    ['the body is Latin-1 (è as byte E8)', post(latin1(withName('Foug\u00e8re'))), NOT_JSON],
    [
      'a Latin-1 body says charset=iso-8859-1',
      post(latin1(withName('Foug\u00e8re')), {
        'content-type': 'application/json; charset=iso-8859-1',
      }),
      NOT_JSON_MEDIA,
    ],
    [
      'a UTF-8 body says charset=utf-16',
      post(FERN, { 'content-type': 'application/json; charset=utf-16' }),
      NOT_JSON_MEDIA,
    ],
    ['the name holds the byte FF', nameOfBytes(0x46, 0xff), NOT_JSON],
    ['a 3-byte sequence is cut short', nameOfBytes(0x46, 0xe2, 0x82), NOT_JSON],
    ['the body holds an overlong "/" (C0 AF)', nameOfBytes(0xc0, 0xaf), NOT_JSON],
    ['the body holds an overlong NUL (E0 80 80)', nameOfBytes(0xe0, 0x80, 0x80), NOT_JSON],
    [
      'an overlong quote (C0 A2) tries to end the name',
      post(bytes('{"id": 1, "name": "', [0xc0, 0xa2], ', "id": 2}')),
      NOT_JSON,
    ],
    ['the body holds a code point above U+10FFFF', nameOfBytes(0xf4, 0x90, 0x80, 0x80), NOT_JSON],
    [
      'the body starts with a UTF-8 BOM',
      post(bytes([0xef, 0xbb, 0xbf], withId('7001'))),
      accepted('7001'),
    ],
    [
      'the content type is APPLICATION/JSON; Charset="UTF-8"',
      post(withId('7002'), { 'content-type': 'APPLICATION/JSON; Charset="UTF-8"' }),
      accepted('7002'),
    ],
  ],
  'lone surrogates': [
    ['the name is an escaped lone high surrogate', post(withName('\\ud800')), NOT_JSON],
    ['the name is an escaped lone low surrogate', post(withName('\\udfff')), NOT_JSON],
    ['the name holds a reversed pair', post(withName('\\udc00\\ud800')), NOT_JSON],
    ['the tag ends in a lone surrogate', post(withExtra('"tag": "x\\ud83c"')), NOT_JSON],
    ['an unknown property holds a lone surrogate', post(withExtra('"extra": "\\udbff"')), NOT_JSON],
    ['a key is a lone surrogate', post(withExtra('"\\ud800": 1')), NOT_JSON],
    ['the body holds a raw surrogate (CESU-8 ED A0 80)', nameOfBytes(0xed, 0xa0, 0x80), NOT_JSON],
    [
      'the name is an escaped surrogate pair',
      post('{"id": 7004, "name": "\\ud83c\\udf3f"}'),
      accepted('7004', { name: '\u{1f33f}' }),
    ],
  ],
  'NUL bytes': [
    ['the name holds a raw NUL byte', post(bytes('{"id": 1, "name": "Fe', [0], 'rn"}')), NOT_JSON],
    [
      'a raw NUL byte sits between members',
      post(bytes('{"id": 1,', [0], '"name": "Fern"}')),
      NOT_JSON,
    ],
    ['the body ends in a raw NUL byte', post(bytes(FERN, [0])), NOT_JSON],
    ['a key holds a raw NUL byte', post(bytes('{"id": 1, "na', [0], 'me": "Fern"}')), NOT_JSON],
    ['the name holds an escaped NUL', post(withName('Fe\\u0000rn')), NOT_A_PLANT],
    ['the tag is an escaped NUL', post(withExtra('"tag": "\\u0000"')), NOT_A_PLANT],
    ['the key "name" holds an escaped NUL', post('{"id": 1, "na\\u0000me": "Fern"}'), NOT_A_PLANT],
    [
      'an unknown key holds an escaped NUL',
      post('{"id": 7005, "name": "Fern", "a\\u0000b": 1}'),
      accepted('7005'),
    ],
  ],
  'duplicate keys': [
    ['"id" appears twice', post('{"id": 1, "id": 2, "name": "Fern"}'), NOT_JSON],
    ['"name" appears twice', post(withExtra('"name": "Ivy"')), NOT_JSON],
    ['"name" appears again as "\\u006eame"', post(withExtra('"\\u006eame": "Ivy"')), NOT_JSON],
    ['"tag" appears twice', post(withExtra('"tag": "a", "tag": "b"')), NOT_JSON],
    [
      'a nested unknown object repeats a key',
      post(withExtra('"extra": {"a": 1, "a": 2}')),
      NOT_JSON,
    ],
    [
      'objects side by side in an array share a key',
      post('{"id": 7006, "name": "Fern", "extra": [{"a": 1}, {"a": 2}]}'),
      accepted('7006'),
    ],
  ],
  'prototype poisoning': [
    ['the body carries __proto__', post(withExtra('"__proto__": {"admin": true}')), NOT_JSON],
    [
      'the body carries __proto__ escaped',
      post(withExtra('"\\u005f\\u005fproto\\u005f\\u005f": {}')),
      NOT_JSON,
    ],
    [
      'the body carries constructor.prototype',
      post(withExtra('"constructor": {"prototype": {"admin": true}}')),
      NOT_JSON,
    ],
    [
      'an unknown property nests __proto__',
      post(withExtra('"extra": {"in": {"__proto__": {"admin": true}}}')),
      NOT_JSON,
    ],
    [
      'an array nests constructor.prototype',
      post(withExtra('"extra": [{"constructor": {"prototype": {}}}]')),
      NOT_JSON,
    ],
    [
      '"constructor" has no "prototype"',
      post('{"id": 7007, "name": "Fern", "constructor": {"name": "x"}}'),
      accepted('7007'),
    ],
    [
      'the name is the text "__proto__"',
      post('{"id": 7008, "name": "__proto__"}'),
      accepted('7008', { name: '__proto__' }),
    ],
  ],
  numbers: [
    ...[
      '1e3',
      '1E3',
      '1.0',
      '9223372036854775808',
      '-9223372036854775809',
      '1e400',
      '"0x10"',
      'true',
    ].map((id): Case => [`id is ${id}`, post(withId(id)), NOT_A_PLANT]),
    ['id has 400 digits', post(withId('9'.repeat(400))), NOT_A_PLANT],
    ...['01', '-01', 'NaN', 'Infinity', '-Infinity', '0x10', '+1', '.5', '1.', '1n'].map(
      (id): Case => [`id is ${id}`, post(withId(id)), NOT_JSON],
    ),
    ['id is -0', post(withId('-0')), accepted('0')],
  ],
  'huge and deep bodies': [
    ['the body is over the limit', post(withName('x'.repeat(BODY_LIMIT))), TOO_LARGE],
    [
      'a chunked body grows over the limit',
      chunked(`${(BODY_LIMIT + 1).toString(16)}\r\n${'x'.repeat(BODY_LIMIT + 1)}\r\n0\r\n\r\n`),
      TOO_LARGE,
    ],
    ['Content-Length claims 10 GB', post('{', { 'content-length': '10000000000' }), TOO_LARGE],
    [`the body is ${String(DEEP)} nested arrays`, post(nestedArrays(DEEP)), NOT_JSON],
    [`the body is ${String(DEEP)} nested objects`, post(nestedObjects(DEEP)), NOT_JSON],
    [
      `an unknown property holds ${String(DEEP)} nested arrays`,
      post(withExtra(`"extra": ${nestedArrays(DEEP)}`)),
      NOT_JSON,
    ],
    [
      `an unknown property holds ${String(DEEP)} nested objects`,
      post(withExtra(`"extra": ${nestedObjects(DEEP)}`)),
      NOT_JSON,
    ],
    [`the body opens ${String(DEEP)} arrays and closes none`, post('['.repeat(DEEP)), NOT_JSON],
    ['JSON text follows the body', post(`${FERN} {"id": 2}`), NOT_JSON],
    ['the body is a JSON string', post(JSON.stringify(FERN)), NOT_A_PLANT],
    [
      'an unknown property nests 100 arrays',
      post(`{"id": 7010, "name": "Fern", "extra": ${nestedArrays(100)}}`),
      accepted('7010'),
    ],
    [
      'the name is 60,000 characters long',
      post(`{"id": 7011, "name": "${'x'.repeat(60_000)}"}`),
      accepted('7011', { name: 'x'.repeat(60_000) }),
    ],
    [
      'the name is 10,000 escaped characters',
      post(`{"id": 7012, "name": "${'\\u0041'.repeat(10_000)}"}`),
      accepted('7012', { name: 'A'.repeat(10_000) }),
    ],
  ],
  methods: [
    ...['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'M-SEARCH'].map(
      (method): Case => [`${method} /plants is sent`, call(method), METHOD_NOT_ALLOWED],
    ),
    [
      'QUERY /plants is sent with a JSON body',
      rawRequest(
        'QUERY /plants HTTP/1.1',
        {
          host: HOST,
          'content-type': 'application/json',
          'content-length': '2',
          connection: 'close',
        },
        Buffer.from('{}'),
      ),
      METHOD_NOT_ALLOWED,
    ],
    ['QUERY /plants is sent without a content type', call('QUERY'), METHOD_NOT_ALLOWED],
    ['QUERY /nope is sent without a content type', call('QUERY', '/nope'), MALFORMED_HTTP],
    ['GET /plants/1 is sent', call('GET', '/plants/1'), NO_ROUTE],
    ['CONNECT is sent', call('CONNECT', 'example.test:443'), NO_ROUTE],
    ['CONNECT /plants is sent', call('CONNECT', '/plants'), NO_ROUTE],
    ['the method is lower case (post)', call('post'), MALFORMED_HTTP],
    ['the method is unknown (BREW)', call('BREW'), MALFORMED_HTTP],
    ['the path has a trailing slash', call('POST', '/plants/'), NO_ROUTE],
    ['the path is upper case', call('POST', '/PLANTS'), NO_ROUTE],
  ],
  'header abuse': [
    ['Content-Type is missing', post(FERN, { 'content-type': undefined }), NOT_JSON_MEDIA],
    ['Content-Type is text/plain', post(FERN, { 'content-type': 'text/plain' }), NOT_JSON_MEDIA],
    ['Content-Type is garbled (;;;)', post(FERN, { 'content-type': ';;;' }), NOT_JSON_MEDIA],
    [
      'Content-Type is application/json-patch+json',
      post(FERN, { 'content-type': 'application/json-patch+json' }),
      NOT_JSON_MEDIA,
    ],
    [
      'Content-Type comes twice, JSON first',
      post(FERN, { 'content-type': ['application/json', 'text/plain'] }),
      NOT_JSON_MEDIA,
    ],
    [
      'Content-Type comes twice, JSON last',
      post(FERN, { 'content-type': ['text/plain', 'application/json'] }),
      NOT_JSON_MEDIA,
    ],
    [
      'Content-Type has an unknown parameter',
      post(withId('7003'), { 'content-type': 'application/json; profile=plant' }),
      accepted('7003'),
    ],
    ['Authorization is missing', post(FERN, { authorization: undefined }), UNAUTHORIZED],
    [
      'Authorization comes twice',
      post(FERN, { authorization: [`Bearer ${TOKEN}`, 'Bearer other'] }),
      UNAUTHORIZED,
    ],
    [
      'Authorization hides a header behind a bare CR',
      post(FERN, { authorization: `Bearer ${TOKEN}\rX-Admin: 1` }),
      MALFORMED_HTTP,
    ],
    ['a header value holds a NUL byte', post(FERN, { 'x-note': 'a\u0000b' }), MALFORMED_HTTP],
    ['a header name holds a space', post(FERN, { 'x note': 'a' }), MALFORMED_HTTP],
    ['a header is folded onto a second line', post(FERN, { 'x-note': 'a\r\n b' }), MALFORMED_HTTP],
    [
      'lines end in a bare LF',
      Buffer.from(`POST /plants HTTP/1.1\nhost: ${HOST}\ncontent-length: 2\n\n{}`),
      MALFORMED_HTTP,
    ],
    ['one header is over 16 KiB', post(FERN, { 'x-big': 'a'.repeat(20_000) }), HEADERS_TOO_LARGE],
    [
      '3,000 small headers add up to over 16 KiB',
      post(FERN, { 'x-many': Array<string>(3_000).fill('b') }),
      HEADERS_TOO_LARGE,
    ],
    ['the URL is over 16 KiB', call('POST', `/plants?${'a'.repeat(20_000)}`), HEADERS_TOO_LARGE],
    [
      'Content-Length and Transfer-Encoding are both sent',
      post('0\r\n\r\n', { 'transfer-encoding': 'chunked' }),
      MALFORMED_HTTP,
    ],
    [
      'two different Content-Lengths are sent',
      post(FERN, { 'content-length': [String(FERN.length), '2'] }),
      MALFORMED_HTTP,
    ],
    [
      'the same Content-Length is sent twice',
      post(FERN, { 'content-length': [String(FERN.length), String(FERN.length)] }),
      MALFORMED_HTTP,
    ],
    ['Content-Length is negative', post(FERN, { 'content-length': '-1' }), MALFORMED_HTTP],
    ['Content-Length is not a number', post(FERN, { 'content-length': '2a' }), MALFORMED_HTTP],
    [
      'Content-Length is shorter than the body',
      post(FERN, { 'content-length': '10' }),
      MALFORMED_HTTP,
    ],
    [
      'Transfer-Encoding is gzip alone',
      chunked(FERN, { 'transfer-encoding': 'gzip' }),
      MALFORMED_HTTP,
    ],
    [
      'Transfer-Encoding: chunked comes twice',
      chunked('0\r\n\r\n', { 'transfer-encoding': ['chunked', 'chunked'] }),
      MALFORMED_HTTP,
    ],
    ['a chunk size is not hexadecimal', chunked('zz\r\n{}\r\n0\r\n\r\n'), MALFORMED_HTTP],
    [
      'chunk extensions are 200 KB long',
      chunked(`${FERN.length.toString(16)};a=b${';a=b'.repeat(50_000)}\r\n${FERN}\r\n0\r\n\r\n`),
      TOO_LARGE,
    ],
    ['Host is missing', post(FERN, { host: undefined }), MALFORMED_HTTP],
    ['Host comes twice', post(FERN, { host: [HOST, 'evil.test'] }), MALFORMED_HTTP],
    ['Expect asks for more than 100-continue', post(FERN, { expect: 'bogus' }), EXPECTATION_FAILED],
    [
      'the path smuggles an encoded CRLF and Set-Cookie',
      call('POST', '/plants%0d%0aSet-Cookie:%20a=b'),
      NO_ROUTE,
    ],
    ['the path has a broken percent-encoding', call('POST', '/plants%'), MALFORMED_HTTP],
    [
      'the HTTP version is 9.9',
      rawRequest('POST /plants HTTP/9.9', { host: HOST }),
      MALFORMED_HTTP,
    ],
    ['an HTTP/2 preface arrives', Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), MALFORMED_HTTP],
    ['the request line is garbage', Buffer.from('GARBAGE\r\n\r\n'), MALFORMED_HTTP],
    [
      'the target names another host in absolute form',
      post(withId('7015'), {}, 'http://evil.test/plants'),
      accepted('7015'),
    ],
  ],
  'slow clients': [
    [
      'the body trickles in one byte every 250 ms',
      trickled(post(SLOW), headEnd(post(SLOW))),
      TIMED_OUT,
    ],
    ['the headers trickle in one byte every 250 ms', trickled(post(SLOW), 20), TIMED_OUT],
    [
      'the body stops short of its Content-Length',
      post(SLOW, { 'content-length': '100' }),
      TIMED_OUT,
    ],
    [
      'a chunked body never sends its last chunk',
      chunked(`${SLOW.length.toString(16)}\r\n${SLOW}\r\n`),
      TIMED_OUT,
    ],
    ['a connection sends nothing', Buffer.alloc(0), TIMED_OUT],
  ],
};

const answer = (expected: Expected) =>
  'error' in expected
    ? `${String(expected.status)}/${String(expected.error)}`
    : '200 with the Plant';

describe('POST /plants on a listening gateway, against malformed and hostile requests', () => {
  const cleanups: (() => Promise<void>)[] = [];
  const publishedIds = new Set<string>();
  let harness: WriterHarness;
  let port = 0;

  // One gateway for the whole corpus: starting a gateway and writer per case would take minutes.
  beforeAll(async () => {
    const registerCleanup = (cleanup: () => Promise<void>) => cleanups.unshift(cleanup);
    harness = await startTestWriter({ registerCleanup });
    const { gateway } = await attachGateway(harness, {
      registerCleanup,
      bodyLimitBytes: BODY_LIMIT,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gateway.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  describe.each(Object.entries(CORPUS))('%s', (_category, cases) => {
    it.each(
      cases.map(
        ([what, request, expected]) =>
          [`When ${what}, then ${answer(expected)}`, request, expected] as const,
      ),
    )('%s', async (_name, request, expected) => {
      const response = await exchange(port, request);

      expect(response, 'the gateway closed the connection without answering').toBeDefined();
      expect(response?.status).toBe(expected.status);
      expect(response?.headers['content-type']).toMatch(/^application\/json/);
      expect(response?.headers['set-cookie']).toBeUndefined();
      const body: unknown = JSON.parse(response?.body ?? '');
      if ('error' in expected) {
        expect(body).toEqual({
          error: expected.error,
          message: expect.stringMatching(/^[^\n]+$/) as string,
        });
      } else {
        expect(body).toEqual(expected.plant);
        publishedIds.add(expected.id);
      }
    });
  });

  // Runs after the corpus (vitest runs a file's tests in order); alone, it still holds.
  it('When every hostile request has been answered, then only the accepted ones were published and a valid create still answers 200', async () => {
    const control = await exchange(port, post(withId('424242')));

    expect(control?.status).toBe(200);
    const expectedIds = [...publishedIds, '424242'].sort();
    const commands = await harness.received(harness.topics.create, expectedIds.length);
    expect(commands.map(({ message }) => message.key?.toString()).sort()).toEqual(expectedIds);
    expect(await commandsPublished(harness)).toBe(expectedIds.length);
  });
});
