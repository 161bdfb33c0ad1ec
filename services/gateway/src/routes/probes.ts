import type { FastifyPluginCallback } from 'fastify';
import { errorBody } from '#shared/contracts/errors.ts';
import { notReadyReason } from '../health/readiness.ts';

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
