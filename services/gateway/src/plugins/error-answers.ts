import type { FastifyError } from 'fastify';
import fp from 'fastify-plugin';
import { errorBody } from '#shared/contracts/errors.ts';
import { ApiError } from '../http/api-error.ts';

const FASTIFY_ERRORS: Record<string, ApiError> = {
  FST_ERR_CTP_BODY_TOO_LARGE: new ApiError('bodyTooLarge', 'Body is larger than the limit'),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: new ApiError(
    'unsupportedMediaType',
    'Content-Type must be application/json',
  ),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: new ApiError(
    'invalidJson',
    'Content-Length does not match the body',
  ),
};

/** Every error a route, hook or Fastify itself raises, answered in the Error shape. */
export const errorAnswers = fp(
  (app, _options, done) => {
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const known =
        error instanceof ApiError ? error : (FASTIFY_ERRORS[error.code] ?? clientFault(error));
      if (known === undefined) {
        request.log.error({ err: error }, 'unexpected error');
        return reply.code(500).send(errorBody('internal', 'Internal error'));
      }
      return reply.code(known.status).headers(known.headers).send(known.body);
    });
    app.setNotFoundHandler((request, reply) =>
      reply.code(404).send(errorBody('notFound', `No route for ${request.method} ${request.url}`)),
    );
    done();
  },
  { name: 'error-answers' },
);

/** Fastify's other refusals of what a client sent (a 4xx status) are malformed requests, not 500s. */
function clientFault(error: FastifyError): ApiError | undefined {
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500
    ? new ApiError('malformedRequest', error.message, { cause: error })
    : undefined;
}
