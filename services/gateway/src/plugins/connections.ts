import fp from 'fastify-plugin';
import { guardConnections } from '#shared/http/connection-guard.ts';
import type { HttpSettings } from '../config.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Why the gateway should get no new connections now, or undefined: `/readyz` reads it. */
    connectionsNotReadyReason(): string | undefined;
  }
}

/**
 * The gateway's port holds at most `maxConnections` connections and survives running out of
 * descriptors or memory (`shared/http/connection-guard.ts`); the timeouts are the server's own
 * (`server-options.ts`).
 */
export const connections = fp<Pick<HttpSettings, 'maxConnections'>>(
  (app, { maxConnections }, done) => {
    const guard = guardConnections(app.server, {
      maxConnections,
      registry: app.metrics.registry,
      logger: app.log,
    });
    app.decorate('connectionsNotReadyReason', () => guard.notReadyReason());
    // Beside Fastify's own handler, which answers the client: a socket that failed for want of
    // memory or buffers is counted like any other exhaustion.
    const observeClientError = (error: Error) => {
      guard.observe(error, 'client');
    };
    app.server.on('clientError', observeClientError);
    app.addHook('onListen', (listened) => {
      guard.watchAccepts();
      listened();
    });
    app.addHook('onClose', (_app, closed) => {
      app.server.off('clientError', observeClientError);
      guard.stop();
      closed();
    });
    done();
  },
  { name: 'connections', dependencies: ['http-metrics'] },
);
