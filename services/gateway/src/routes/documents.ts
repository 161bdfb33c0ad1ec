import type { FastifyPluginCallback } from 'fastify';
import { asyncApiJson } from '#shared/contracts/asyncapi/asyncapi.ts';
import type { HttpSettings } from '../config.ts';
import { openApiDocument } from '../http/openapi.ts';

/** The public documents: the HTTP contract, the Kafka contract, and the metrics unless METRICS_PORT moved them. */
export const documentRoutes: FastifyPluginCallback<
  Pick<HttpSettings, 'topics' | 'metricsOnApiPort'>
> = (app, settings, done) => {
  const { registry } = app.metrics;
  if (settings.metricsOnApiPort) {
    app.get('/metrics', async (_request, reply) =>
      reply.type(registry.contentType).send(await registry.metrics()),
    );
  }
  app.get('/openapi.json', (request) => openApiDocument(`${request.protocol}://${request.host}`));
  const asyncApi = asyncApiJson(settings.topics);
  app.get('/asyncapi.json', (_request, reply) => reply.type('application/json').send(asyncApi));
  done();
};
