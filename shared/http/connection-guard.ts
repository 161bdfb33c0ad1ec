import { closeSync, openSync } from 'node:fs';
import type { Server } from 'node:net';
import { Counter, Gauge, type Registry } from 'prom-client';
import { burst } from '../burst.ts';
import type { Logger } from '../logger.ts';

/** Errors that say the process, or the machine, has run out of descriptors or memory. */
const EXHAUSTION = {
  EMFILE: 'file descriptors',
  ENFILE: "the system's file descriptors",
  ENOMEM: 'memory',
  ENOBUFS: 'socket buffers',
} as const;
type ExhaustionCode = keyof typeof EXHAUSTION;

const EXHAUSTION_TOTAL = 'plant_store_resource_exhaustion_total';
const PROBE_EVERY_MS = 1_000;
/** How long without a refusal or an exhaustion error ends a burst (and its 503 on /readyz). */
const QUIET_MS = 5_000;

export interface ConnectionGuardOptions {
  maxConnections: number;
  /** The service's registry: its default `service` label tells the two services' series apart. */
  registry: Registry;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /**
   * The port's series are plant_store_<series>_connections and the like: `http` (the default) for
   * a service's main port, another name for a second port of the same process. The exhaustion
   * counter is the process's, shared by every port.
   */
  series?: string;
  probeEveryMs?: number;
  quietMs?: number;
}

export interface ConnectionGuard {
  /** Counts and logs (once per burst) an error that is the process running out of something. */
  observe(error: unknown, source: string): boolean;
  /** Why the port should get no new work now: at its cap, or out of descriptors or memory. */
  notReadyReason(): string | undefined;
  /** For the server's `listening`: from then on, an accept error is told, never thrown. */
  watchAccepts(): void;
  stop(): void;
}

/**
 * Bounds the connections of an HTTP port and survives running out: past `maxConnections`, Node
 * closes each new connection as soon as it is accepted, so clients already connected keep their
 * descriptors, memory and event loop. Being at the cap, or out of descriptors (a probe opens one
 * every second, since libuv drops connections it cannot accept without a word), is logged once
 * per burst, counted and told by `/readyz` until it has been over for a few seconds.
 */
export function guardConnections(server: Server, options: ConnectionGuardOptions): ConnectionGuard {
  const { maxConnections, registry, logger, series = 'http' } = options;
  const quietMs = options.quietMs ?? QUIET_MS;
  const sourceOf = (what: string) => (series === 'http' ? what : `${series} ${what}`);
  server.maxConnections = maxConnections;
  const { refusedTotal, exhaustedTotal } = connectionMetrics(server, registry, series);

  const refusals = burst<undefined>({
    quietMs,
    started: () => {
      logger.warn({ maxConnections }, 'connection cap reached: new connections are closed at once');
    },
    ended: ({ events, lastedMs }) => {
      logger.info({ refused: events, lastedMs }, 'connections below the cap again');
    },
  });
  let lastCode: ExhaustionCode = 'EMFILE';
  const exhaustion = burst<{ error: unknown; source: string }>({
    quietMs,
    started: ({ error, source }) => {
      logger.error({ err: error, source }, `out of ${EXHAUSTION[lastCode]}: surviving`);
    },
    ended: ({ events, lastedMs }) => {
      logger.info({ errors: events, lastedMs }, `no longer out of ${EXHAUSTION[lastCode]}`);
    },
  });
  const onDrop = () => {
    refusedTotal.inc();
    refusals.note(undefined);
  };
  server.on('drop', onDrop);

  const observe = (error: unknown, source: string): boolean => {
    const code = exhaustionCodeOf(error);
    if (code === undefined) return false;
    lastCode = code;
    exhaustedTotal.inc({ code, source });
    exhaustion.note({ error, source });
    return true;
  };
  const onError = (error: unknown) => {
    if (!observe(error, sourceOf('accept')))
      logger.error({ err: error }, 'the HTTP port failed to accept');
  };
  const probe = setInterval(() => {
    try {
      closeSync(openSync('/dev/null', 'r'));
    } catch (error) {
      observe(error, sourceOf('descriptor probe'));
    }
  }, options.probeEveryMs ?? PROBE_EVERY_MS).unref();

  return {
    observe,
    notReadyReason() {
      if (exhaustion.active) return `out of ${EXHAUSTION[lastCode]} (${lastCode})`;
      if (refusals.active)
        return `at its cap of ${String(maxConnections)} connections: new ones are closed at once`;
      return undefined;
    },
    watchAccepts() {
      server.on('error', onError);
    },
    stop() {
      clearInterval(probe);
      refusals.stop();
      exhaustion.stop();
      server.off('drop', onDrop);
      server.off('error', onError);
    },
  };
}

/** The port's series, and the process's exhaustion counter (registered once, by the first port). */
function connectionMetrics(server: Server, registry: Registry, series: string) {
  const registers = [registry];
  new Gauge({
    name: `plant_store_${series}_max_connections`,
    help: 'Open connections beyond which new ones are closed at once (MAX_CONNECTIONS or derived)',
    registers,
  }).set(server.maxConnections);
  new Gauge({
    name: `plant_store_${series}_connections`,
    help: 'Connections open on the HTTP port',
    registers,
    async collect() {
      this.set(await openConnections(server));
    },
  });
  const refusedTotal = new Counter({
    name: `plant_store_${series}_connections_refused_total`,
    help: 'Connections closed as soon as they were accepted because the port was at its cap',
    registers,
  });
  const exhaustedTotal =
    (registry.getSingleMetric(EXHAUSTION_TOTAL) as Counter<'code' | 'source'> | undefined) ??
    new Counter({
      name: EXHAUSTION_TOTAL,
      help: 'Errors that said the process ran out of descriptors or memory, by code and where',
      labelNames: ['code', 'source'],
      registers,
    });
  return { refusedTotal, exhaustedTotal };
}

function exhaustionCodeOf(error: unknown): ExhaustionCode | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code in EXHAUSTION ? (code as ExhaustionCode) : undefined;
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.getConnections((error, count) => {
      resolve(error === null ? count : 0);
    });
  });
}
