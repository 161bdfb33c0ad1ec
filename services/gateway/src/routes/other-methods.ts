import { METHODS } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../http/api-error.ts';

/**
 * Answers every method Node's parser accepts on `url`, but the `allowed` ones, with 405/4050 and
 * `Allow` (RFC 9110 §15.5.6): the resource exists, the method does not. The refusal is its own
 * route's `onRequest` hook, so the method decides before any token is checked (authentication is
 * a hook of the allowed routes) and before the body is read: a PUT with a text body is 405, not
 * 415. The app's own `onRequest` hooks (Host, overload, shutdown) still come first. Being a
 * route, it is timed and traced under `url`, not under the raw URL.
 */
export function refuseOtherMethods(
  app: FastifyInstance,
  url: string,
  allowed: readonly string[],
): void {
  // Fastify routes only the common methods: the others Node parses (WebDAV's, PURGE, ...) would
  // reach the not-found handler and answer 404. Adding them is server-wide (Fastify keeps one set)
  // and changes nothing elsewhere: like unknown methods, they get no body parsing.
  // CONNECT never reaches Fastify: the server's `connect` listener answers it (malformed-http.ts).
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
  const headers = { allow: allowed.join(', ') };
  const refuse = (request: FastifyRequest) =>
    Promise.reject(
      new ApiError(
        'methodNotAllowed',
        `${request.method} is not allowed on ${url}; use ${allowed.join(' or ')}`,
        { headers },
      ),
    );
  app.route({
    method: app.supportedMethods.filter((method) => !allowed.includes(method)),
    url,
    onRequest: refuse,
    // Never reached, the hook refuses first; Fastify requires a handler.
    handler: refuse,
  });
}
