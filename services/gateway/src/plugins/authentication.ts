import fastifyAuth from '@fastify/auth';
import type { preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { bearerAuth, type TokenVerifier } from '../bearer-auth.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** A route's `onRequest`: passes a bearer token that any of the verifiers accepts. */
    authenticate: preHandlerHookHandler;
  }
}

export interface AuthenticationOptions {
  tokenVerifiers: readonly TokenVerifier[];
}

/** Bearer tokens (RFC 6750), checked before the body is read, through @fastify/auth. */
export const authentication = fp<AuthenticationOptions>(
  async (app, options) => {
    await app.register(fastifyAuth);
    app.decorate('authenticate', app.auth(options.tokenVerifiers.map(bearerAuth)));
  },
  { name: 'authentication' },
);
