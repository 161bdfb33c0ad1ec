import { createHash } from 'node:crypto';
import fastifyRateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import { ApiError } from '../http/api-error.ts';
import { bearerToken } from '../auth/bearer-auth.ts';

/** Limits that routes set in their `config.rateLimit`, per bearer token, answered 429/4290. */
export const rateLimit = fp(
  async (app) => {
    await app.register(fastifyRateLimit, {
      global: false,
      // Per token, after authentication (the route's own onRequest hook runs first); keyed by a
      // digest so no token is kept in memory as a key.
      keyGenerator: (request) =>
        createHash('sha256')
          .update(bearerToken(request.headers.authorization) ?? '')
          .digest('base64url'),
      errorResponseBuilder: (_request, context) =>
        new ApiError(
          'tooManyRequests',
          `More than ${String(context.max)} creates a minute for this token; retry in ${context.after}`,
        ),
    });
  },
  { name: 'rate-limit' },
);
