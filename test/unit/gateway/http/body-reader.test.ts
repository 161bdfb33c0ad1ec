import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { contentLengthOf, readBody } from '#gateway/http/body-reader.ts';

/** `length` bytes that differ from one position to the next, so a misplaced chunk shows. */
const bytes = (length: number) => Buffer.from(Array.from({ length }, (_, index) => index % 251));

/** Writes `body` in `size`-byte chunks, each on its own turn of the event loop, then ends. */
async function send(payload: PassThrough, body: Buffer, size: number, end = true) {
  for (let at = 0; at < body.length; at += size) {
    payload.write(body.subarray(at, at + size));
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (end) payload.end();
}

/** `readBody`, failing instead of waiting for the test's timeout if it does not settle within 2 s. */
function read(payload: PassThrough, contentLength: number | undefined, limit: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error('the body was neither read nor refused within 2 s'));
    }, 2_000);
  });
  return Promise.race([readBody(payload, contentLength, limit), late]).finally(() => {
    clearTimeout(timer);
  });
}

/** What a refusal is: Fastify's code and status. */
const refused = (code: string, statusCode: number): unknown =>
  expect.objectContaining({ code, statusCode });

describe('Reading a request body', () => {
  it('When a body comes in many small chunks without a Content-Length, then it comes back whole, as one Buffer', async () => {
    const payload = new PassThrough();
    const sent = bytes(16 * 1_024 + 17);

    const reading = read(payload, undefined, 64 * 1_024);
    await send(payload, sent, 64);
    const body = await reading;

    expect(Buffer.isBuffer(body)).toBe(true);
    expect(body.equals(sent)).toBe(true);
  });

  it('When a body comes with its Content-Length, then the buffer has exactly that length and those bytes', async () => {
    const payload = new PassThrough();
    const sent = bytes(5_000);

    const reading = read(payload, sent.length, 16 * 1_024);
    await send(payload, sent, 256);
    const body = await reading;

    expect(body.length).toBe(5_000);
    expect(body.equals(sent)).toBe(true);
  });

  it('When the body is exactly the limit, then it is read', async () => {
    const payload = new PassThrough();
    const sent = bytes(1_000);

    const reading = read(payload, undefined, 1_000);
    await send(payload, sent, 100);

    expect((await reading).equals(sent)).toBe(true);
  });

  it('When the Content-Length is above the limit, then the body is refused as too large before anything is read', async () => {
    const payload = new PassThrough();
    payload.write(bytes(10));

    await expect(read(payload, 1_001, 1_000)).rejects.toEqual(
      refused('FST_ERR_CTP_BODY_TOO_LARGE', 413),
    );

    expect(payload.readableFlowing).toBeNull();
    expect(payload.listenerCount('data')).toBe(0);
    expect(payload.readableLength).toBe(10);
  });

  it('When a body without a Content-Length grows past the limit, then it is refused as too large', async () => {
    const payload = new PassThrough();

    const reading = read(payload, undefined, 1_000);
    const outcome = expect(reading).rejects.toEqual(refused('FST_ERR_CTP_BODY_TOO_LARGE', 413));
    await send(payload, bytes(1_001), 100, false);

    await outcome;
    expect(payload.listenerCount('data')).toBe(0);
  });

  it.each([
    ['ends before', 99, 33],
    ['is longer than', 101, 50],
  ])(
    'When the body %s its Content-Length, then it is refused as an invalid Content-Length',
    async (_what, length, chunkBytes) => {
      const payload = new PassThrough();

      const reading = read(payload, 100, 1_000);
      const outcome = expect(reading).rejects.toEqual(
        refused('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400),
      );
      await send(payload, bytes(length), chunkBytes);

      await outcome;
    },
  );

  it('When the stream fails, then its error is passed on as a 400', async () => {
    const payload = new PassThrough();
    const aborted = new Error('aborted');

    const reading = read(payload, 100, 1_000);
    await send(payload, bytes(10), 10, false);
    payload.destroy(aborted);

    await expect(reading).rejects.toBe(aborted);
    expect(aborted).toHaveProperty('statusCode', 400);
  });

  it('When the stream fails with a 4xx status of its own, then that status is kept', async () => {
    const payload = new PassThrough();
    const timedOut = Object.assign(new Error('request timed out'), { statusCode: 408 });

    const reading = read(payload, undefined, 1_000);
    payload.destroy(timedOut);

    await expect(reading).rejects.toBe(timedOut);
    expect(timedOut.statusCode).toBe(408);
  });

  it('When the stream fails with a status that is not an error, then it becomes a 400', async () => {
    const payload = new PassThrough();
    const odd = Object.assign(new Error('odd'), { statusCode: 200 });

    const reading = read(payload, undefined, 1_000);
    payload.destroy(odd);

    await expect(reading).rejects.toBe(odd);
    expect(odd.statusCode).toBe(400);
  });

  it('When the body is empty with a Content-Length of 0, then it is an empty buffer', async () => {
    const payload = new PassThrough();

    const reading = read(payload, 0, 1_000);
    payload.end();
    const body = await reading;

    expect(Buffer.isBuffer(body)).toBe(true);
    expect(body.length).toBe(0);
  });

  it('When the body is empty without a Content-Length, then it is an empty buffer', async () => {
    const payload = new PassThrough();

    const reading = read(payload, undefined, 1_000);
    payload.end();

    expect((await reading).length).toBe(0);
  });
});

describe('The Content-Length of a request', () => {
  it.each([
    ['42', 42],
    ['0', 0],
    ['16384', 16_384],
  ])('When the header is %j, then it is %i', (header, length) => {
    expect(contentLengthOf(header)).toBe(length);
  });

  it.each([
    ['missing', undefined],
    ['not a number', 'abc'],
    ['a number followed by text', '12abc'],
    ['empty', ''],
    ['negative', '-1'],
    ['hexadecimal', '0x10'],
    ['in exponent form', '1e3'],
  ])('When the header is %s, then there is none', (_what, header) => {
    expect(contentLengthOf(header)).toBeUndefined();
  });
});
