import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { Logger } from '#shared/logger.ts';
import { ApiError } from './api-error.ts';

/** What Node's HTTP parser refuses before Fastify sees a request, by the code of its error. */
const PARSER_REFUSALS: Record<string, ApiError> = {
  ERR_HTTP_REQUEST_TIMEOUT: new ApiError(
    'requestTimeout',
    'The request was not received completely in time',
  ),
  HPE_HEADER_OVERFLOW: new ApiError(
    'headersTooLarge',
    'The request line and headers are larger than the limit',
  ),
  HPE_CHUNK_EXTENSIONS_OVERFLOW: new ApiError(
    'bodyTooLarge',
    'The chunk extensions are larger than the limit',
  ),
};
const MALFORMED = new ApiError('malformedRequest', 'Malformed HTTP request');
/**
 * The status `answerClientError` wrote straight onto a socket: a request whose body came too
 * slowly or broke its framing was routed by Fastify before Node refused it, and is timed with it.
 */
export type RawAnswers = WeakMap<Duplex, number>;
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * Fastify's `clientErrorHandler`: requests Node refuses itself (bad framing, a Content-Length
 * beside a Transfer-Encoding, oversized headers, a body slower than the request timeout) get the
 * Error shape too, then the connection is closed.
 */
export function answerClientError(logger: Logger, rawAnswers: RawAnswers) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    logger.debug({ err: error }, 'HTTP request refused by the parser');
    // Like Node's own handler: never write into a response that has already begun.
    if (!socket.writable || responseStarted(socket)) {
      socket.destroy();
      return;
    }
    const refusal =
      (error.code === undefined ? undefined : PARSER_REFUSALS[error.code]) ?? MALFORMED;
    rawAnswers.set(socket, refusal.status);
    socket.end(rawResponse(refusal), () => socket.destroy());
  };
}

/** The server's `connect` listener: nothing here is a proxy; without one, Node drops the socket. */
export function refuseConnect(request: IncomingMessage, socket: Duplex): void {
  socket.end(
    rawResponse(new ApiError('notFound', `No route for CONNECT ${request.url ?? ''}`)),
    () => socket.destroy(),
  );
}

/** The server's `checkExpectation` listener; without one, Node answers 417 with an empty body. */
export function refuseExpectation(_request: IncomingMessage, response: ServerResponse): void {
  const refusal = new ApiError('expectationFailed', 'Only Expect: 100-continue is supported');
  const body = JSON.stringify(refusal.body);
  response
    .writeHead(refusal.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    })
    .end(body);
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request has exactly one Host header, any request at most one
 * (Node would keep the first of two silently). Node's own check is off: it answers an empty 400.
 * A proxy may have read such a request otherwise, so, like the parser's refusals, the answer
 * closes the connection (Node ends the socket after a response with `connection: close`).
 */
export function requireOneHost(request: FastifyRequest): Promise<void> {
  const hosts = headerCount(request.raw.rawHeaders, 'host');
  return hosts > 1 || (hosts === 0 && request.raw.httpVersion === '1.1')
    ? Promise.reject(
        new ApiError('malformedRequest', 'Send exactly one Host header', {
          headers: { connection: 'close' },
        }),
      )
    : Promise.resolve();
}

/**
 * Why a body labelled application/json is still not read as one: two Content-Type headers
 * (Node keeps the first silently) or a charset other than UTF-8 (RFC 8259 §8.1; the body is
 * decoded as UTF-8 whatever the label says).
 */
export function contentTypeProblem(request: IncomingMessage): ApiError | undefined {
  if (headerCount(request.rawHeaders, 'content-type') > 1) {
    return new ApiError('unsupportedMediaType', 'Send exactly one Content-Type header');
  }
  const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8') {
    return new ApiError(
      'unsupportedMediaType',
      'Content-Type must be application/json, in UTF-8 (charset=utf-8 or none)',
    );
  }
  return undefined;
}

/** How many times a header was sent, whatever its case. */
export function headerCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2)
    if (rawHeaders[index]?.toLowerCase() === name) count++;
  return count;
}

function responseStarted(socket: Duplex): boolean {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  return inFlight?.headersSent === true;
}

function rawResponse(refusal: ApiError): string {
  const body = JSON.stringify(refusal.body);
  return [
    `HTTP/1.1 ${String(refusal.status)} ${STATUS_CODES[refusal.status] ?? ''}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${String(Buffer.byteLength(body))}`,
    'connection: close',
    '',
    body,
  ].join('\r\n');
}
