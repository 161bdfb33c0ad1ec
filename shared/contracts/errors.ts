import Type, { type Static } from 'typebox';

export const ErrorBody = Type.Object({
  error: Type.Integer({ format: 'int32', description: 'Numeric error value' }),
  message: Type.String({ description: 'Error text' }),
});
export type ErrorBody = Static<typeof ErrorBody>;

/**
 * Every `error` value the service answers with, its HTTP status and when it is answered
 * (docs/decisions/0001-error-shape-and-codes.md).
 * Described here once: the OpenAPI document and docs/reference/error-codes.md are read from it
 * (test/unit/shared/contracts/errors.test.ts holds that table to it).
 */
export const ERRORS = {
  invalidPlant: {
    error: 4000,
    status: 400,
    when: 'not a NewPlant: missing field, wrong type (no coercion: `"name": 123`, `"tag": null`), id not an integer literal within int64 (`1.5`, `"1"`, `1e3`, `2^63`); a NUL (U+0000) in `name` or `tag`',
  },
  invalidJson: {
    error: 4001,
    status: 400,
    when: 'not JSON, empty, not UTF-8, or carries `__proto__` / `constructor.prototype`; not I-JSON (RFC 7493): a member name twice (`"id": 1, "id": 2`), an unpaired surrogate (`"\\ud800"`); nested deeper than 128 levels',
  },
  malformedRequest: {
    error: 4002,
    status: 400,
    when: "malformed HTTP, answered for Node's parser: bad framing, `Content-Length` with `Transfer-Encoding`, bare CR/LF, NUL in a header, unknown method, broken URL; HTTP/1.1 without exactly one `Host`; the connection is closed",
  },
  conflictingPlant: {
    error: 4009,
    status: 400,
    when: 'a plant with this id exists with another name or tag (the same content answers 200 again, so retries are safe)',
  },
  unauthorized: {
    error: 4010,
    status: 401,
    when: 'bearer token missing, malformed, unknown, or a JWT that fails its checks; `WWW-Authenticate: Bearer realm="plant-store"[, error="invalid_token"]`; two `Authorization` headers: `error="invalid_request"`; a token in the query string is not looked at; `bearer` in any case is accepted; beyond `AUTH_REFUSALS_PER_SECOND` refusals in a second, answered after `AUTH_REFUSAL_DELAY_MS` with `Connection: close`',
  },
  notFound: {
    error: 4040,
    status: 404,
    when: 'no such path, whatever the method; `CONNECT` to any target (the gateway is not a proxy)',
  },
  methodNotAllowed: {
    error: 4050,
    status: 405,
    when: 'any method on `/plants` but `POST` (`HEAD`, `OPTIONS` and `TRACE` included), with `Allow: POST`; answered before the token is checked or the body read',
  },
  requestTimeout: {
    error: 4080,
    status: 408,
    when: 'a connection sent no complete request head within `HEADERS_TIMEOUT_MS` (3 s; from its accept if it sent nothing), or not the whole request (headers and body) within `REQUEST_TIMEOUT_MS`; the connection is closed',
  },
  bodyTooLarge: {
    error: 4130,
    status: 413,
    when: 'body larger than `BODY_LIMIT_BYTES` (or chunk extensions larger than Node accepts)',
  },
  unsupportedMediaType: {
    error: 4150,
    status: 415,
    when: '`Content-Type` is not `application/json`, names a charset other than UTF-8, or is sent twice',
  },
  expectationFailed: {
    error: 4170,
    status: 417,
    when: '`Expect` asks for anything but `100-continue`',
  },
  tooManyRequests: {
    error: 4290,
    status: 429,
    when: 'the token made more than `RATE_LIMIT_PER_MINUTE` creates in the last minute (`Retry-After` in seconds); limits are per gateway instance',
  },
  headersTooLarge: {
    error: 4310,
    status: 431,
    when: "request line and headers larger than Node's 16 KiB",
  },
  internal: {
    error: 5000,
    status: 500,
    when: 'unexpected internal error (details only in the log)',
  },
  unavailable: {
    error: 5030,
    status: 503,
    when: 'Kafka cannot take the command, as many creates already wait for writers as the gateway admits now (its admission limit, at most `MAX_IN_FLIGHT`; refused from the request line, before the token is checked), the event loop lags more than `MAX_EVENT_LOOP_DELAY_MS`, or the gateway is shutting down (`Retry-After: 1`); `/readyz` while not ready, draining, at its connection cap or out of descriptors',
  },
  replyTimeout: {
    error: 5040,
    status: 504,
    when: 'no writer answered within `REPLY_TIMEOUT_MS`; the outcome is unknown and an identical retry is safe',
  },
} as const;
export type ErrorKind = keyof typeof ERRORS;

export function errorBody(kind: ErrorKind, message: string): ErrorBody {
  return { error: ERRORS[kind].error, message };
}
