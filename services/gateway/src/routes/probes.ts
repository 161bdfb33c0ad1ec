import type { FastifyInstance, FastifyPluginCallback } from 'fastify';
import { errorBody } from '#shared/contracts/errors.ts';

/**
 * Why the gateway should get no new requests: it drains (`plugins/stopping.ts`), its port is at
 * its cap or out of descriptors (`plugins/connections.ts`), or its creates cannot be served yet
 * (`plugins/creates.ts`).
 */
export function notReadyReason(
  app: Pick<FastifyInstance, 'isDraining' | 'connectionsNotReadyReason' | 'createsNotReadyReason'>,
): string | undefined {
  return app.isDraining()
    ? 'shutting down'
    : (app.connectionsNotReadyReason() ?? app.createsNotReadyReason());
}

/** GET /healthz (the process runs) and GET /readyz (it can take creates: `notReadyReason`). */
export const probeRoutes: FastifyPluginCallback = (app, _options, done) => {
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => {
    const reason = notReadyReason(app);
    if (reason === undefined) return { status: 'ready' };
    return reply
      .code(503)
      .header('retry-after', '1')
      .send(errorBody('unavailable', `Not ready: ${reason}`));
  });
  done();
};
