import { setTimeout as sleep } from 'node:timers/promises';
import fp from 'fastify-plugin';
import { errorBody } from '#shared/contracts/errors.ts';
import type { HttpSettings } from '../config.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Turns `/readyz` to 503 at once and keeps serving for the drain period, then refuses new
     * requests, answers those in flight and closes the app (whose `onClose` hooks disconnect the
     * Kafka clients). Later calls get the first call's promise.
     */
    drainAndClose(): Promise<void>;
    /** True from the first `drainAndClose`: `/readyz` answers 503 so balancers stop sending. */
    isDraining(): boolean;
  }
}

/** While the gateway closes, requests get 503/5030 and every answer tells its client to go. */
export const stopping = fp<Pick<HttpSettings, 'shutdownDrainMs'>>(
  (app, settings, done) => {
    let stopped: Promise<void> | undefined;
    let closing = false;
    app.decorate('isDraining', () => stopped !== undefined);
    app.decorate('drainAndClose', () => {
      stopped ??= (async () => {
        await sleep(settings.shutdownDrainMs);
        closing = true;
        await app.close();
      })();
      return stopped;
    });
    app.addHook('onRequest', async (_request, reply) => {
      if (!closing) return;
      await reply
        .code(503)
        .headers({ 'retry-after': '1', connection: 'close' })
        .send(errorBody('unavailable', 'Shutting down; retry on another instance'));
    });
    // Keep-alive connections that finish their request during a shutdown would otherwise hold
    // close() open until their idle timeout (KEEP_ALIVE_TIMEOUT_MS): tell clients to reconnect elsewhere.
    app.addHook('onSend', (_request, reply, _payload, done) => {
      if (closing) reply.header('connection', 'close');
      done();
    });
    done();
  },
  { name: 'stopping' },
);
