import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.ts';
import { headerCount } from '../http/malformed-http.ts';

/** One way to accept a bearer token: static tokens or JWT. */
export type TokenVerifier = (token: string) => Promise<boolean>;

const REALM = 'realm="plant-store"';
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

const refusal = (message: string, error?: 'invalid_token' | 'invalid_request') =>
  new ApiError('unauthorized', message, {
    headers: {
      'www-authenticate':
        error === undefined ? `Bearer ${REALM}` : `Bearer ${REALM}, error="${error}"`,
    },
  });

/**
 * An @fastify/auth strategy for `Authorization: Bearer <token>` (RFC 6750) accepting what
 * `verify` accepts. A token anywhere else (the query string, the body) is not looked at, and a
 * request with two Authorization headers is refused: Node would silently keep the first.
 */
export function bearerAuth(verify: TokenVerifier) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined) throw refusal('A bearer token is required');
    if (headerCount(request.raw.rawHeaders, 'authorization') > 1) {
      throw refusal('Send exactly one Authorization header', 'invalid_request');
    }
    const token = bearerToken(header);
    if (token === undefined || !(await verify(token))) {
      throw refusal('The bearer token is missing, malformed or not valid', 'invalid_token');
    }
  };
}

/** The token of an `Authorization: Bearer <token>` header; `bearer` in any case. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}
