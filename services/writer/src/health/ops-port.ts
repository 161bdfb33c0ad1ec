import {
  startOpsServer,
  type OpsServerOptions,
  type ServiceHealth,
} from '#shared/http/ops-server.ts';

/**
 * The writer's one HTTP port, for probes and Prometheus only (`shared/http/ops-server.ts`): `/healthz`
 * is 200 while the process answers (the writer restarts a stopped consumer itself, and replacing
 * it does not bring a broker or the store back); `/readyz` is 503 until the writer is in its
 * group, while its consumer restarts, while the store does not answer it, while the port is at its
 * connection cap or the process out of descriptors, and from the moment it stops.
 */
export const startOpsPort = (
  writer: ServiceHealth,
  options: Omit<OpsServerOptions, 'name' | 'series'>,
) => startOpsServer(writer, { ...options, name: 'writer health and metrics' });
