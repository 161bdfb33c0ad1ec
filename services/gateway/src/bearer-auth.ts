import type { FastifyRequest } from 'fastify';
import { ApiError } from './api-error.ts';

const REALM = 'realm="plant-store"';
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * An @fastify/auth strategy for `Authorization: Bearer <token>` (RFC 6750). `verify` is the token
 * check of one strategy (static tokens now; JWT comes as a second strategy).
 */
export function bearerAuth(verify: (token: string) => boolean) {
  return (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined) {
      return Promise.reject(
        new ApiError('unauthorized', 'A bearer token is required', {
          headers: { 'www-authenticate': `Bearer ${REALM}` },
        }),
      );
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined || !verify(token)) {
      return Promise.reject(
        new ApiError('unauthorized', 'The bearer token is missing, malformed or not valid', {
          headers: { 'www-authenticate': `Bearer ${REALM}, error="invalid_token"` },
        }),
      );
    }
    return Promise.resolve();
  };
}
