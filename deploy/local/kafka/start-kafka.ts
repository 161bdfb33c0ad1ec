import { join } from 'node:path';
import type { KafkaConnection } from '#shared/kafka/connection.ts';
import { startServerProcess, type ServerProcess } from '../process/server-process.ts';
import { waitUntilReady } from '../process/wait-until-ready.ts';
import { assertLinksValid } from './broker-config.ts';
import {
  assertLayoutMatches,
  clusterLayout,
  javaArgs,
  type ClusterNode,
  type KafkaOptions,
} from './cluster-layout.ts';
import { clusterIsReady } from './cluster-ready.ts';
import { KAFKA_VERSION } from './jars.ts';
import { ADMIN, scramConnection } from './security.ts';
import { clusterId, formatOnce, securityMode } from './storage-format.ts';

const MAIN_CLASS = 'kafka.Kafka';

export interface KafkaServer {
  /** Every node's `host:port`, comma-separated (KAFKA_BROKERS). */
  readonly brokers: string;
  /** How a super user connects: to apply ACLs, to check readiness. */
  readonly admin: KafkaConnection;
  /** The running process of each node, by node id (1, 2, …). */
  readonly nodes: ReadonlyMap<number, ServerProcess>;
  /** Each node's log file, by node id. */
  readonly logFiles: ReadonlyMap<number, string>;
  /** Settles when any node exits. */
  readonly exited: Promise<unknown>;
  /** Starts a node that was stopped or killed, on its data; resolves once the cluster has it back. */
  startNode(id: number): Promise<void>;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 90_000;

export async function startKafka(options: KafkaOptions): Promise<KafkaServer> {
  assertLinksValid(options);
  const cluster = clusterLayout(options);
  await assertLayoutMatches(options.dir, cluster.length);
  const security = securityMode(options.security);
  const id = clusterId();
  for (const node of cluster) await formatOnce(options, node, cluster, security, id);
  const addresses = cluster.map(({ address }) => address);
  const brokers = addresses.join(',');
  const admin =
    options.security === undefined
      ? { brokers: addresses }
      : scramConnection(brokers, options.security, ADMIN);
  const nodes = new Map<number, ServerProcess>();
  const start = (node: ClusterNode) => {
    const server = startServerProcess({
      name:
        cluster.length === 1
          ? `Kafka ${KAFKA_VERSION}`
          : `Kafka ${KAFKA_VERSION} node ${String(node.id)}`,
      command: 'java',
      args: javaArgs(options, node, MAIN_CLASS, join(node.dir, 'server.properties')),
      logFile: node.logFile,
    });
    nodes.set(node.id, server);
    return waitUntilReady(server, () => clusterIsReady(admin, cluster.length), READY_TIMEOUT_MS);
  };
  const stop = async () => {
    await Promise.all([...nodes.values()].map((server) => server.stop()));
  };
  // The first node that fails stops them all: the others would wait for it until the timeout.
  await Promise.all(cluster.map(start)).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return {
    brokers,
    admin,
    nodes,
    logFiles: new Map(cluster.map((node) => [node.id, node.logFile])),
    exited: Promise.race([...nodes.values()].map((server) => server.exited)),
    async startNode(nodeId) {
      const node = cluster.find((candidate) => candidate.id === nodeId);
      if (node === undefined) throw new Error(`no Kafka node ${String(nodeId)}`);
      if (nodes.get(nodeId)?.isRunning() === true)
        throw new Error(`Kafka node ${String(nodeId)} is running`);
      await start(node);
    },
    stop,
  };
}
