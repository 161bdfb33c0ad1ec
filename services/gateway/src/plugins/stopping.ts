import fp from 'fastify-plugin';
import { errorBody } from '../../../../shared/contracts/errors.ts';

export interface StoppingOptions {
  /** True once the gateway closes: every request from then on is refused. */
  isStopping: () => boolean;
}

/** While the gateway closes, requests get 503/5030 and every answer tells its client to go. */
export const stopping = fp<StoppingOptions>(
  (app, options, done) => {
    app.addHook('onRequest', async (_request, reply) => {
      if (!options.isStopping()) return;
      await reply
        .code(503)
        .headers({ 'retry-after': '1', connection: 'close' })
        .send(errorBody('unavailable', 'Shutting down; retry on another instance'));
    });
    // Keep-alive connections that finish their request during a shutdown would otherwise hold
    // close() open until their idle timeout (72 s): tell clients to reconnect elsewhere.
    app.addHook('onSend', (_request, reply, _payload, done) => {
      if (options.isStopping()) reply.header('connection', 'close');
      done();
    });
    done();
  },
  { name: 'stopping' },
);
