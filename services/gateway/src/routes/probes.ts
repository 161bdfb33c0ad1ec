import type { FastifyPluginCallback } from 'fastify';
import { errorBody } from '../../../../shared/contracts/errors.ts';

export interface ProbeRoutesOptions {
  /** Why `/readyz` answers 503 (no reply consumer yet, draining), or undefined when ready. */
  notReadyReason: () => string | undefined;
}

/** GET /healthz (the process runs) and GET /readyz (it can take creates). */
export const probeRoutes: FastifyPluginCallback<ProbeRoutesOptions> = (app, options, done) => {
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => {
    const reason = options.notReadyReason();
    if (reason === undefined) return { status: 'ready' };
    return reply
      .code(503)
      .header('retry-after', '1')
      .send(errorBody('unavailable', `Not ready: ${reason}`));
  });
  done();
};
