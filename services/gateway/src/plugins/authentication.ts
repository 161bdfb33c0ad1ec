import fastifyAuth from '@fastify/auth';
import type { preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { bearerAuth } from '../bearer-auth.ts';
import type { HttpSettings } from '../config.ts';
import { jwtVerifier } from '../jwt-tokens.ts';
import { staticTokenVerifier } from '../static-tokens.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** A route's `onRequest`: passes a bearer token that any of the verifiers accepts. */
    authenticate: preHandlerHookHandler;
  }
}

/** Bearer tokens (RFC 6750), static or JWT, checked before the body is read, through @fastify/auth. */
export const authentication = fp<Pick<HttpSettings, 'authTokens' | 'jwt'>>(
  async (app, settings) => {
    const tokenVerifiers = [
      ...(settings.authTokens.length > 0 ? [staticTokenVerifier(settings.authTokens)] : []),
      ...(settings.jwt === undefined ? [] : [jwtVerifier(settings.jwt)]),
    ];
    if (tokenVerifiers.length === 0) throw new Error('No authentication configured');
    await app.register(fastifyAuth);
    app.decorate('authenticate', app.auth(tokenVerifiers.map(bearerAuth)));
  },
  { name: 'authentication' },
);
