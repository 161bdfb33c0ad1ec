import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { LOOPBACK } from '../provision/ports.ts';
import type { KafkaNodePorts } from './node-ports.ts';
import type { KafkaSecurity } from './security.ts';

export interface KafkaOptions {
  libsDir: string;
  /**
   * Holds the configuration and the data (of node i in `node-<i>` when there are several);
   * reusing it keeps topics, messages and offsets.
   */
  dir: string;
  /**
   * One entry per node, each a broker and a KRaft controller. Several nodes replicate every topic
   * to all of them (up to 3) with `min.insync.replicas` 2.
   */
  nodes: readonly KafkaNodePorts[];
  /** The log of a single node; `<name>-<i>.log` beside it for each of several. */
  logFile: string;
  /** Broker settings over the project's (tests: limits to run into). */
  overrides?: Record<string, string>;
  /** SASL_SSL and ACLs instead of plaintext for everyone. */
  security?: KafkaSecurity;
}

/** One node of the cluster: its id (from 1), folder, client address and log file. */
export interface ClusterNode extends KafkaNodePorts {
  id: number;
  dir: string;
  address: string;
  logFile: string;
}

/** One node has `dir` to itself; several each have `node-<id>` in it and a log of their own. */
export function clusterLayout(options: KafkaOptions): ClusterNode[] {
  if (options.nodes.length === 0) throw new Error('a Kafka cluster needs at least one node');
  const several = options.nodes.length > 1;
  return options.nodes.map((ports, index) => {
    const id = index + 1;
    return {
      ...ports,
      id,
      dir: several ? join(options.dir, `node-${String(id)}`) : options.dir,
      address: `${LOOPBACK}:${String(ports.port)}`,
      logFile: several ? options.logFile.replace(/(\.log)?$/, `-${String(id)}$1`) : options.logFile,
    };
  });
}

/** A directory formatted as one node is never reused as a cluster of several, nor the reverse. */
export async function assertLayoutMatches(dir: string, nodes: number): Promise<void> {
  const single = existsSync(join(dir, 'data', 'meta.properties'));
  const several = existsSync(join(dir, 'node-1', 'data', 'meta.properties'));
  if ((nodes === 1 && several) || (nodes > 1 && single)) {
    throw new Error(
      `${dir} holds a Kafka of ${single ? 'one node' : 'several nodes'}, not of ${String(nodes)}. Use another --dir, or delete this one to start afresh.`,
    );
  }
  if (
    nodes > 1 &&
    several &&
    !existsSync(join(dir, `node-${String(nodes)}`, 'data', 'meta.properties'))
  )
    throw new Error(
      `${dir} holds a Kafka of fewer nodes than ${String(nodes)}. Use another --dir, or delete this one to start afresh.`,
    );
  await mkdir(dir, { recursive: true });
}

/** How a node's JVM runs `mainClass` on the broker's jars, logging as the node's log4j2 file says. */
export function javaArgs(
  options: KafkaOptions,
  node: ClusterNode,
  mainClass: string,
  ...args: string[]
): string[] {
  return [
    '-Xms256m',
    '-Xmx512m',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${join(node.dir, 'log4j2.properties')}`,
    '-cp',
    join(options.libsDir, '*'),
    mainClass,
    ...args,
  ];
}
