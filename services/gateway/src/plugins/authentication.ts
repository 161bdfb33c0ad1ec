import fastifyAuth from '@fastify/auth';
import type { Socket } from 'node:net';
import type { preHandlerHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../http/api-error.ts';
import { bearerAuth } from '../auth/bearer-auth.ts';
import type { HttpSettings } from '../config.ts';
import { jwtVerifier } from '../auth/jwt-tokens.ts';
import { refusalPacer } from '../auth/refusal-pacing.ts';
import { staticTokenVerifier } from '../auth/static-tokens.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** A route's `onRequest`: passes a bearer token that any of the verifiers accepts. */
    authenticate: preHandlerHookHandler;
  }
}

const PIPELINED = new ApiError(
  'unauthorized',
  'A request sent behind a refused token on the same connection is not read',
);

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
    // Connections whose refusal waits: nothing is written meanwhile, so Node's back-pressure on
    // pipelined requests (it stops reading while answers wait to be written) never starts.
    const waiting = new WeakSet<Socket>();
    const authenticate: preHandlerHookHandler = function (request, reply, done) {
      const { socket } = request.raw;
      checkToken.call(this, request, reply, (error?: Error | null) => {
        // Pipelined behind a refusal whose answer closes the connection: it would never be
        // answered, and holding it for the delay would let one connection hold requests without
        // bound. Refused at once, it waits in Node's queue behind that answer, then is dropped.
        if (waiting.has(socket)) {
          done(PIPELINED);
          return;
        }
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
        waiting.add(socket);
        // What is already read is parsed; nothing more is read from this connection.
        socket.pause();
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
