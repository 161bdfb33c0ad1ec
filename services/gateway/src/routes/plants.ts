import type { FastifyPluginCallback } from 'fastify';
import { decodeNewPlant } from '#shared/contracts/new-plant.ts';
import { ApiError, createsBusy, RETRY_SHORTLY } from '../http/api-error.ts';
import type { HttpSettings } from '../config.ts';
import type { CreateOutcome } from '../create-plant.ts';
import { requestTraceContext } from '../observability/request-tracing.ts';
import { refuseOtherMethods } from './other-methods.ts';

/** The one place a create's outcome becomes an HTTP answer: a writer's reply, or a refusal. */
function refusalOf(outcome: Exclude<CreateOutcome, { kind: 'answered' }>): ApiError {
  switch (outcome.kind) {
    case 'busy':
      return createsBusy(outcome.waiting);
    case 'unpublished':
      return new ApiError('unavailable', 'Kafka cannot take the command now; retry shortly', {
        cause: outcome.cause,
        ...RETRY_SHORTLY,
      });
    case 'timedOut':
      return new ApiError(
        'replyTimeout',
        `No writer answered within ${String(outcome.afterMs)} ms; the outcome is unknown and an identical retry is safe`,
      );
  }
}

/**
 * POST /plants: authenticated, rate-limited per token, the body decoded losslessly. Any other
 * method on /plants: 405 with `Allow: POST`, without authentication.
 */
export const plantRoutes: FastifyPluginCallback<Pick<HttpSettings, 'rateLimitPerMinute'>> = (
  app,
  settings,
  done,
) => {
  const { rateLimitPerMinute } = settings;
  app.post(
    '/plants',
    {
      onRequest: app.authenticate,
      config: {
        rateLimit:
          rateLimitPerMinute === undefined
            ? false
            : { max: rateLimitPerMinute, timeWindow: 60_000 },
      },
    },
    async (request, reply) => {
      const checked = decodeNewPlant(Buffer.isBuffer(request.body) ? request.body : null);
      if (!checked.ok) return reply.code(400).send(checked.error);
      const outcome = await app.createPlant(checked.plant, {
        id: request.id,
        log: request.log,
        trace: requestTraceContext(request.raw),
      });
      if (outcome.kind === 'answered') {
        const answer = outcome.reply;
        return reply.code(answer.status).send(answer.status === 200 ? answer.plant : answer.error);
      }
      if (outcome.kind === 'timedOut') app.metrics.replyTimeouts.inc();
      throw refusalOf(outcome);
    },
  );
  refuseOtherMethods(app, '/plants', ['POST']);
  done();
};
