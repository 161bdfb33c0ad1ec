import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { errorBody } from '../../../shared/contracts/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { HttpSettings } from './config.ts';
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
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    http: {
      // Node times out a slow body only with the timeout given at creation, not Fastify's later
      // one, and only when it checks its connections (every 30 s by default).
      requestTimeout: settings.requestTimeoutMs,
      // Node counts it from a connection's first byte or, before one, from its accept: a socket
      // that sends nothing is closed this soon, not after the whole request's time.
      headersTimeout: Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(
        1_000,
        Math.ceil(Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs) / 4),
      ),
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
