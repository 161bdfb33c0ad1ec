import fastifyAuth from '@fastify/auth';
import type { preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { bearerAuth } from '../bearer-auth.ts';
import type { HttpSettings } from '../config.ts';
import { jwtVerifier } from '../jwt-tokens.ts';
import { refusalPacer } from '../refusal-pacing.ts';
import { staticTokenVerifier } from '../static-tokens.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** A route's `onRequest`: passes a bearer token that any of the verifiers accepts. */
    authenticate: preHandlerHookHandler;
  }
}

/**
 * Bearer tokens (RFC 6750), static or JWT, checked before the body is read, through @fastify/auth.
 * Refusals beyond `refusalPacing.perSecond` are answered after its delay, with `Connection:
 * close` (`refusal-pacing.ts`).
 */
export const authentication = fp<Pick<HttpSettings, 'authTokens' | 'jwt' | 'refusalPacing'>>(
  async (app, settings) => {
    const tokenVerifiers = [
      ...(settings.authTokens.length > 0 ? [staticTokenVerifier(settings.authTokens)] : []),
      ...(settings.jwt === undefined ? [] : [jwtVerifier(settings.jwt)]),
    ];
    if (tokenVerifiers.length === 0) throw new Error('No authentication configured');
    await app.register(fastifyAuth);
    const checkToken = app.auth(tokenVerifiers.map(bearerAuth));
    const pacer = refusalPacer(settings.refusalPacing);
    const authenticate: preHandlerHookHandler = function (request, reply, done) {
      checkToken.call(this, request, reply, (error?: Error | null) => {
        if (error === undefined || error === null) {
          done();
          return;
        }
        const delayMs = pacer.delayOfNext();
        if (delayMs === 0) {
          done(error);
          return;
        }
        app.metrics.refusalsDelayed.inc();
        void reply.header('connection', 'close');
        setTimeout(() => {
          done(error);
        }, delayMs);
      });
    };
    app.decorate('authenticate', authenticate);
  },
  { name: 'authentication', dependencies: ['http-metrics'] },
);
