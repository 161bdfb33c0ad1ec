import type { FastifyPluginCallback } from 'fastify';
import type { Registry } from 'prom-client';
import type { Topics } from '../../../../shared/contracts/kafka.ts';
import { asyncApiJson } from '../../../../shared/contracts/asyncapi/asyncapi.ts';
import { openApiDocument } from '../openapi.ts';

export interface DocumentRoutesOptions {
  /** The topics this deployment uses, named by the AsyncAPI document. */
  topics: Topics;
  registry: Registry;
}

/** The public documents: the HTTP contract, the Kafka contract, the metrics. */
export const documentRoutes: FastifyPluginCallback<DocumentRoutesOptions> = (
  app,
  options,
  done,
) => {
  app.get('/metrics', async (_request, reply) =>
    reply.type(options.registry.contentType).send(await options.registry.metrics()),
  );
  app.get('/openapi.json', (request) => openApiDocument(`${request.protocol}://${request.host}`));
  const asyncApi = asyncApiJson(options.topics);
  app.get('/asyncapi.json', (_request, reply) => reply.type('application/json').send(asyncApi));
  done();
};
