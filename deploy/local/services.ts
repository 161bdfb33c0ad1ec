import { WRITER_GROUP } from '#shared/contracts/kafka.ts';
import { GATEWAY_MAIN, startNodeService, WRITER_MAIN } from './process/node-service.ts';
import { kafkaConnectionFromEnv } from '#shared/service-settings.ts';
import { freePort } from './provision/ports.ts';
import { groupIsStable } from './kafka/group-stability.ts';
import { httpIsReady } from './process/http-ready.ts';
import type { ServiceConnections } from './secure-stack.ts';
import type { ServerProcess } from './process/server-process.ts';
import { waitUntilReady } from './process/wait-until-ready.ts';

export interface ServicesOptions {
  /** Both services' environment: tokens, topics, log level. */
  env: NodeJS.ProcessEnv;
  /** How each service reaches Kafka and the store (`serviceConnections` of a stack). */
  connections: ServiceConnections;
  logDir: string;
  writers: number;
  gateways: number;
  /** Variables of one process of its own, by its name (the chaos run's gray links). */
  ownEnv?: (name: string) => Record<string, string>;
}

export interface Services {
  writers: ServerProcess[];
  gateways: ServerProcess[];
  /** `http://127.0.0.1:<port>` of each gateway, in order. */
  urls: string[];
}

/**
 * Writer and gateway processes, each ready: writers in a stable group, gateways' `/readyz` 200.
 * When one does not get ready, every one started is stopped before the error is thrown.
 */
export async function startServices(options: ServicesOptions): Promise<Services> {
  const ports = await Promise.all(Array.from({ length: options.gateways }, () => freePort()));
  const writers = Array.from({ length: options.writers }, (_, index) =>
    startWriterProcess(`writer-${String(index + 1)}`, options),
  );
  const urls = ports.map((port) => `http://127.0.0.1:${String(port)}`);
  const gateways = ports.map((port, index) =>
    startGatewayProcess(ports.length === 1 ? 'gateway' : `gateway-${String(index + 1)}`, port, {
      ...options,
      env: { ...ownReplyPartition(index, options.env), ...options.env },
    }),
  );
  const writerEnv = { ...options.env, ...options.connections.writer };
  try {
    for (const writer of writers) await writerJoined(writer, writerEnv, writers.length);
    await Promise.all(
      gateways.map((gateway, index) =>
        waitUntilReady(gateway, () => httpIsReady(urls[index] ?? ''), 60_000),
      ),
    );
  } catch (error) {
    await Promise.all([...gateways, ...writers].map((service) => service.stop()));
    throw error;
  }
  return { writers, gateways, urls };
}

/**
 * Gateway `index`'s reply partition, one each while there are partitions enough: the
 * topic's partitions are KAFKA_PARTITIONS here, where the services create it.
 */
export function ownReplyPartition(index: number, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const partitions = Number(env.KAFKA_PARTITIONS ?? '3');
  return { REPLY_PARTITION: String(index % partitions) };
}

export function startGatewayProcess(
  name: string,
  port: number,
  options: Pick<ServicesOptions, 'env' | 'connections' | 'logDir' | 'ownEnv'>,
): ServerProcess {
  return startNodeService({
    name,
    script: GATEWAY_MAIN,
    env: {
      ...options.env,
      ...options.connections.gateway,
      ...options.ownEnv?.(name),
      PORT: String(port),
    },
    logDir: options.logDir,
  });
}

export function startWriterProcess(
  name: string,
  options: Pick<ServicesOptions, 'env' | 'connections' | 'logDir' | 'ownEnv'>,
): ServerProcess {
  return startNodeService({
    name,
    script: WRITER_MAIN,
    env: {
      ...options.env,
      ...options.connections.writer,
      // Several writers on one host: each health and metrics port is a free one (in its log).
      METRICS_PORT: '0',
      ...options.ownEnv?.(name),
    },
    logDir: options.logDir,
  });
}

/** Resolves once the writers' group is stable with `members` members. */
function writerJoined(
  writer: ServerProcess,
  env: NodeJS.ProcessEnv,
  members: number,
): Promise<void> {
  const connection = kafkaConnectionFromEnv(env);
  const group = env.KAFKA_WRITER_GROUP ?? WRITER_GROUP;
  return waitUntilReady(writer, () => groupIsStable(connection, group, members), 60_000);
}
