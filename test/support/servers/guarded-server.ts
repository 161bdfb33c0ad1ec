import { createServer, type Server } from 'node:net';
import { Registry } from 'prom-client';
import { onTestFinished, vi } from 'vitest';
import { guardConnections, type ConnectionGuardOptions } from '#shared/http/connection-guard.ts';

// Guarded servers for the tests of shared/http/connection-guard.ts: a cap of 2 connections and short
// quiet and probe periods, a spy logger and the guard's metrics.

export const QUIET_MS = 200;
export const PROBE_EVERY_MS = 100;

export const CAP_REASON = 'at its cap of 2 connections: new ones are closed at once';

function spyLogger() {
  return { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
}

export function guarded(server: Server, options: Partial<ConnectionGuardOptions> = {}) {
  const registry = new Registry();
  const logger = spyLogger();
  const guard = guardConnections(server, {
    maxConnections: 2,
    registry,
    logger,
    quietMs: QUIET_MS,
    probeEveryMs: PROBE_EVERY_MS,
    ...options,
  });
  onTestFinished(() => {
    guard.stop();
  });
  /** The value of a metric, with these labels or its only one. */
  const metric = async (name: string, labels: Record<string, string> = {}) => {
    const { values } = (await registry.getSingleMetric(name)?.get()) ?? { values: [] };
    return values.find((value) =>
      Object.entries(labels).every(([label, wanted]) => value.labels[label] === wanted),
    )?.value;
  };
  const exhaustions = async () => {
    const { values } = (await registry
      .getSingleMetric('plant_store_resource_exhaustion_total')
      ?.get()) ?? { values: [] };
    return values.map(({ labels, value }) => ({ ...labels, value }));
  };
  return { guard, registry, logger, metric, exhaustions };
}

export const exhausted = (code: string) =>
  Object.assign(new Error(`${code}: out of something`), { code });

/** A guard on a server that never listens: its events are emitted by the test. */
export function guardedIdleServer(options: Partial<ConnectionGuardOptions> = {}) {
  const server = createServer();
  return { server, ...guarded(server, options) };
}
