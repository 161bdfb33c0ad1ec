import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { errorBody } from '#shared/contracts/errors.ts';
import { nodeServerTimeouts } from '#shared/http-limits.ts';
import type { Logger } from '#shared/logger.ts';
import type { HttpSettings } from '../config.ts';
import { answerClientError, type RawAnswers } from './malformed-http.ts';

/** The Fastify server: ids, limits and timeouts, and Node's own refusals in the Error shape. */
export function serverOptions(
  settings: Pick<
    HttpSettings,
    'bodyLimitBytes' | 'requestTimeoutMs' | 'headersTimeoutMs' | 'keepAliveTimeoutMs'
  >,
  logger: Logger,
  rawAnswers: RawAnswers,
) {
  return {
    loggerInstance: logger,
    bodyLimit: settings.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Fastify's own 503 while closing has its default error shape; the stopping plugin answers.
    return503OnClosing: false,
    // Fastify sets these on the server after creating it: the same values as Node's below.
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    http: {
      ...nodeServerTimeouts(settings, settings.requestTimeoutMs),
      // Node's own refusal has an empty body; requireOneHost answers in the Error shape.
      requireHostHeader: false,
    },
    clientErrorHandler: answerClientError(logger, rawAnswers),
    // Fastify answers a URL it cannot decode in its own shape, unless this is set.
    frameworkErrors: (error: Error, _request: unknown, reply: FastifyReply) => {
      void reply.code(400).send(errorBody('malformedRequest', error.message));
    },
  };
}
