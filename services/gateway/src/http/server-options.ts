import { randomUUID } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { FastifyReply } from 'fastify';
import { errorBody } from '#shared/contracts/errors.ts';
import { nodeServerTimeouts, type HttpLimits } from '#shared/http/limits.ts';
import { closeIdleConnectionsAfterReading } from '#shared/http/keep-alive.ts';
import type { Logger } from '#shared/logger.ts';
import { AccessLog } from './access-log.ts';
import { answerClientError, type RawAnswers } from './malformed-http.ts';

/**
 * The Fastify server: ids, one access line per request, limits and timeouts, Node's own refusals in the Error shape, and
 * `listener` around Fastify's own (`early-refusal.ts`).
 */
export function serverOptions(
  settings: Pick<HttpLimits, 'headersTimeoutMs' | 'keepAliveTimeoutMs'> & {
    bodyLimitBytes: number;
    requestTimeoutMs: number;
  },
  logger: Logger,
  rawAnswers: RawAnswers,
  listener: (fastify: RequestListener) => RequestListener,
) {
  const http = {
    ...nodeServerTimeouts(settings, settings.requestTimeoutMs),
    // Node's own refusal has an empty body; requireOneHost answers in the Error shape.
    requireHostHeader: false,
  };
  return {
    loggerInstance: logger,
    logController: new AccessLog(),
    bodyLimit: settings.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Fastify's own 503 while closing has its default error shape; the stopping plugin answers.
    return503OnClosing: false,
    http,
    // Fastify creates the server itself unless given this; the timeouts are Node's options here.
    serverFactory: (fastify: RequestListener) =>
      closeIdleConnectionsAfterReading(createServer(http, listener(fastify))),
    clientErrorHandler: answerClientError(logger, rawAnswers),
    // Fastify answers a URL it cannot decode in its own shape, unless this is set.
    frameworkErrors: (error: Error, _request: unknown, reply: FastifyReply) => {
      void reply.code(400).send(errorBody('malformedRequest', error.message));
    },
  };
}
