import type { FastifyInstance } from 'fastify';

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
