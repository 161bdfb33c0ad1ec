import type { Readable } from 'node:stream';
import { errorCodes } from 'fastify';

/** A buffer grows by doubling from this, up to the Content-Length or the limit. */
const FIRST_CAPACITY = 1_024;

/**
 * Reads a body into one buffer as its chunks arrive, refusing it past `limit` bytes as Fastify's
 * own reader does (FST_ERR_CTP_BODY_TOO_LARGE, FST_ERR_CTP_INVALID_CONTENT_LENGTH). Fastify's
 * reader keeps every chunk until the end: a body sent a few bytes at a time then holds a Buffer
 * object per chunk, several times the body's bytes in heap, which a flood of slow connections
 * multiplied past the heap limit. Here each chunk is copied and dropped, so a
 * connection holds at most twice the bytes it sent.
 */
export function readBody(
  payload: Readable,
  contentLength: number | undefined,
  limit: number,
): Promise<Buffer> {
  if (contentLength !== undefined && contentLength > limit)
    return Promise.reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const ceiling = contentLength ?? limit;
  return new Promise((resolve, reject) => {
    let body = Buffer.alloc(Math.min(FIRST_CAPACITY, ceiling));
    let received = 0;
    const finish = (outcome: Buffer | Error) => {
      payload.off('data', onData).off('end', onEnd).off('error', onError);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > limit) {
        finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
        return;
      }
      if (received + chunk.length > body.length) {
        const grown = Buffer.alloc(
          Math.max(Math.min(body.length * 2, ceiling), received + chunk.length),
        );
        body.copy(grown, 0, 0, received);
        body = grown;
      }
      chunk.copy(body, received);
      received += chunk.length;
    };
    const onEnd = () => {
      finish(
        contentLength !== undefined && received !== contentLength
          ? new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH()
          : body.subarray(0, received),
      );
    };
    const onError = (error: Error & { statusCode?: number }) => {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400))
        error.statusCode = 400;
      finish(error);
    };
    payload.on('data', onData).on('end', onEnd).on('error', onError);
    payload.resume();
  });
}

/** The Content-Length header as a number, when it is one (RFC 9110 §8.6: digits only). */
export function contentLengthOf(header: string | undefined): number | undefined {
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
}
