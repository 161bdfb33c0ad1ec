import { createHash, randomUUID } from 'node:crypto';
import fastifyAuth from '@fastify/auth';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyUnderPressure from '@fastify/under-pressure';
import Fastify, { type FastifyError, type FastifyReply } from 'fastify';
import { errorBody } from '../../../shared/contracts/errors.ts';
import type { Topics } from '../../../shared/contracts/kafka.ts';
import { decodeNewPlant } from '../../../shared/contracts/new-plant.ts';
import type { NewPlant } from '../../../shared/contracts/plant.ts';
import type { Reply } from '../../../shared/contracts/reply.ts';
import type { Logger } from '../../../shared/logger.ts';
import { ApiError } from './api-error.ts';
import { asyncApiJson } from './asyncapi.ts';
import { bearerAuth, bearerToken, type TokenVerifier } from './bearer-auth.ts';
import type { CreateRequest } from './create-plant.ts';
import {
  answerClientError,
  contentTypeProblem,
  refuseConnect,
  refuseExpectation,
  requireOneHost,
} from './malformed-http.ts';
import { recordAnswers, type GatewayMetrics } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { requestTraceContext, traceRequests } from './request-tracing.ts';

export interface AppDeps {
  /** The use case behind POST /plants; its reply is the HTTP answer. */
  createPlant: (plant: NewPlant, request: CreateRequest) => Promise<Reply>;
  logger: Logger;
  /** A request passes with a bearer token that any of them accepts. */
  tokenVerifiers: readonly TokenVerifier[];
  bodyLimitBytes: number;
  /** How long a client may take to send a whole request, headers and body, before 408. */
  requestTimeoutMs: number;
  /** Creates each token may make per minute; unlimited when absent. */
  rateLimitPerMinute?: number;
  /** Mean event-loop delay above which requests are refused with 503; 0 turns the check off. */
  maxEventLoopDelayMs: number;
  /** How often that delay is sampled (1 s unless a test needs it sooner). */
  eventLoopSampleMs?: number;
  /** Why `/readyz` answers 503 (no reply consumer yet, draining), or undefined when ready. */
  notReadyReason: () => string | undefined;
  /** True once the gateway closes: every request from then on is refused. */
  isStopping: () => boolean;
  metrics: GatewayMetrics;
  /** The topics this deployment uses, named by the AsyncAPI document. */
  topics: Topics;
}

/** Answered even when the process is overloaded: probes and scrapes must see it as it is. */
const ALWAYS_ANSWERED = new Set(['/healthz', '/metrics']);

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

/** The gateway as a Fastify instance, not listening: `main.ts` listens, tests use `inject`. */
export async function buildApp(deps: AppDeps) {
  const app = Fastify({
    loggerInstance: deps.logger,
    bodyLimit: deps.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // Fastify's own 503 while closing has its default error shape; the hook below answers instead.
    return503OnClosing: false,
    requestTimeout: deps.requestTimeoutMs,
    http: {
      // Node times out a slow body only with the timeout given at creation, not Fastify's later
      // one, and only when it checks its connections (every 30 s by default).
      requestTimeout: deps.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(deps.requestTimeoutMs / 4)),
      // Node's own refusal has an empty body; requireOneHost answers in the Error shape.
      requireHostHeader: false,
    },
    clientErrorHandler: answerClientError(deps.logger),
    // Fastify answers a URL it cannot decode in its own shape, unless this is set.
    frameworkErrors: (error, _request, reply: FastifyReply) => {
      void reply.code(400).send(errorBody('malformedRequest', error.message));
    },
  });
  traceRequests(app);
  recordAnswers(app, deps.metrics);
  app.server.on('connect', refuseConnect);
  app.server.on('checkExpectation', refuseExpectation);
  app.addHook('onRequest', requireOneHost);
  await app.register(fastifyAuth);
  await app.register(fastifyUnderPressure, {
    maxEventLoopDelay: deps.maxEventLoopDelayMs,
    sampleInterval: deps.eventLoopSampleMs ?? 1_000,
    // A liveness probe must not fail because the process is busy: restarting it sheds nothing.
    // A scrape must not either: an overload is when its figures matter most.
    pressureHandler: (request) =>
      ALWAYS_ANSWERED.has(request.url)
        ? Promise.resolve()
        : Promise.reject(
            new ApiError(
              'unavailable',
              `Overloaded: the event loop lags more than ${String(deps.maxEventLoopDelayMs)} ms; retry shortly`,
              { headers: { 'retry-after': '1' } },
            ),
          ),
  });
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

  // Bodies are parsed losslessly by the same decoder the writer uses, not by Fastify's JSON.parse.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    done(contentTypeProblem(request.raw) ?? null, body);
  });

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

  app.addHook('onRequest', async (_request, reply) => {
    if (!deps.isStopping()) return;
    await reply
      .code(503)
      .headers({ 'retry-after': '1', connection: 'close' })
      .send(errorBody('unavailable', 'Shutting down; retry on another instance'));
  });
  // Keep-alive connections that finish their request during a shutdown would otherwise hold
  // close() open until their idle timeout (72 s): tell clients to reconnect elsewhere.
  app.addHook('onSend', (_request, reply, _payload, done) => {
    if (deps.isStopping()) reply.header('connection', 'close');
    done();
  });

  app.get('/metrics', async (_request, reply) =>
    reply.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics()),
  );
  app.get('/openapi.json', (request) => openApiDocument(`${request.protocol}://${request.host}`));
  const asyncApi = asyncApiJson(deps.topics);
  app.get('/asyncapi.json', (_request, reply) => reply.type('application/json').send(asyncApi));
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => {
    const reason = deps.notReadyReason();
    if (reason === undefined) return { status: 'ready' };
    return reply
      .code(503)
      .header('retry-after', '1')
      .send(errorBody('unavailable', `Not ready: ${reason}`));
  });

  app.post(
    '/plants',
    {
      onRequest: app.auth(deps.tokenVerifiers.map(bearerAuth)),
      ...(deps.rateLimitPerMinute === undefined
        ? {}
        : { config: { rateLimit: { max: deps.rateLimitPerMinute, timeWindow: 60_000 } } }),
    },
    async (request, reply) => {
      const checked = decodeNewPlant(Buffer.isBuffer(request.body) ? request.body : null);
      if (!checked.ok) return reply.code(400).send(checked.error);
      const outcome = await deps.createPlant(checked.plant, {
        id: request.id,
        log: request.log,
        trace: requestTraceContext(request.raw),
      });
      return reply
        .code(outcome.status)
        .send(outcome.status === 200 ? outcome.plant : outcome.error);
    },
  );

  return app;
}

/** Fastify's other refusals of what a client sent (a 4xx status) are malformed requests, not 500s. */
function clientFault(error: FastifyError): ApiError | undefined {
  const status = error.statusCode ?? 500;
  return status >= 400 && status < 500
    ? new ApiError('malformedRequest', error.message, { cause: error })
    : undefined;
}

export type GatewayApp = Awaited<ReturnType<typeof buildApp>>;
