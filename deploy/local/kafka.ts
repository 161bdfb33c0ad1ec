import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { KafkaConnection } from '#shared/kafka-connection.ts';
import {
  ADMIN,
  scramConnection,
  scramUsers,
  secureListenerProperties,
  type KafkaSecurity,
} from './kafka-security.ts';
import { freePort, LOOPBACK } from './ports.ts';
import { provisionOnce } from './provision-cache.ts';
import { runLogged } from './run-logged.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';
import { waitUntilReady } from './wait-until-ready.ts';

export const KAFKA_VERSION = '4.1.1';
export const KAFKA_CACHE_NAME = `kafka-${KAFKA_VERSION}`;
const MAIN_CLASS = 'kafka.Kafka';

/** Downloads the broker's jars once per machine; returns the directory holding them. */
export async function provisionKafka(cache: string, logFile: string): Promise<string> {
  const home = await provisionOnce(cache, KAFKA_CACHE_NAME, async (dir) => {
    await copyFile(join(import.meta.dirname, 'kafka-runtime.pom.xml'), join(dir, 'pom.xml'));
    await runLogged(
      'mvn',
      [
        // Not quiet: Maven names each file it downloads, which the progress line counts.
        '-B',
        `-Dkafka.version=${KAFKA_VERSION}`,
        'dependency:copy-dependencies',
        '-DoutputDirectory=libs',
        '-DincludeScope=runtime',
      ],
      {
        cwd: dir,
        logFile,
        progress: {
          step: `downloading Kafka ${KAFKA_VERSION}'s jars (Maven: a minute or more the first time)`,
          counts: { line: /^\[INFO\] Downloaded from /, done: 'files downloaded' },
        },
      },
    );
  });
  return join(home, 'libs');
}

/** Where one node of the cluster listens on 127.0.0.1: for clients, and for the controllers. */
export interface KafkaNodePorts {
  port: number;
  controllerPort: number;
  /** Plaintext listeners of their own for clients that reach the node through a proxy. */
  links?: readonly KafkaLinkListener[];
}

/**
 * A listener that the node binds on `port` and advertises as `advertisedPort`, a proxy's
 * forwarding to `port`: a client that bootstraps through the proxy is told the proxy's address
 * for every node, so all its requests take the proxy, not only the first (docs/decisions/0049-gray-fault-tooling.md,
 * "Gray faults").
 */
export interface KafkaLinkListener {
  /** The listener's name: capitals, digits and `_`, not PLAINTEXT or CONTROLLER. */
  name: string;
  port: number;
  advertisedPort: number;
}

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

/** `--brokers` of the local scripts: 1 (the default) or a replicated cluster of 3. */
export function brokerCount(value: string | undefined): number {
  const count = Number(value ?? '1');
  if (count !== 1 && count !== 3)
    throw new Error(
      `--brokers takes 1 (one node) or 3 (a replicated cluster), got "${String(value)}"`,
    );
  return count;
}

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

/** Node i (from 0) on `first`'s ports plus 2i: 9092/9093, 9094/9095, 9096/9097 from the defaults. */
export function consecutiveNodePorts(first: KafkaNodePorts, count: number): KafkaNodePorts[] {
  return Array.from({ length: count }, (_, node) => ({
    port: first.port + 2 * node,
    controllerPort: first.controllerPort + 2 * node,
  }));
}

/** Free ports for `count` nodes. */
export async function freeNodePorts(count: number): Promise<KafkaNodePorts[]> {
  const ports: KafkaNodePorts[] = [];
  for (let node = 0; node < count; node++)
    ports.push({ port: await freePort(), controllerPort: await freePort() });
  return ports;
}

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
    return waitUntilReady(server, () => describeCluster(admin, cluster.length), READY_TIMEOUT_MS);
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

interface ClusterNode extends KafkaNodePorts {
  id: number;
  dir: string;
  address: string;
  logFile: string;
}

function clusterLayout(options: KafkaOptions): ClusterNode[] {
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
async function assertLayoutMatches(dir: string, nodes: number): Promise<void> {
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

function javaArgs(
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

/** Writes the node's configuration; formats its storage on the first start only. */
async function formatOnce(
  options: KafkaOptions,
  node: ClusterNode,
  cluster: readonly ClusterNode[],
  security: string,
  id: string,
): Promise<void> {
  const configFile = await writeConfig(options, node, cluster);
  const formattedAs = join(node.dir, 'formatted-as');
  if (existsSync(join(node.dir, 'data', 'meta.properties'))) {
    const before = existsSync(formattedAs) ? await readFile(formattedAs, 'utf8') : 'plaintext';
    if (before !== security) throw new Error(formattedOtherwise(options.dir, before, security));
    return;
  }
  await runLogged(
    'java',
    javaArgs(
      options,
      node,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      id,
      '-c',
      configFile,
      // One node bootstraps a dynamic quorum of itself; several are listed as static voters.
      ...(cluster.length === 1 ? ['--standalone'] : []),
      ...(options.security === undefined ? [] : scramUsers(options.security)),
    ),
    {
      cwd: node.dir,
      logFile: node.logFile,
      secrets: Object.values(options.security?.passwords ?? {}),
    },
  );
  await writeFile(formattedAs, security);
}

async function writeConfig(
  options: KafkaOptions,
  node: ClusterNode,
  cluster: readonly ClusterNode[],
): Promise<string> {
  await mkdir(join(node.dir, 'data'), { recursive: true });
  const controller = `${LOOPBACK}:${String(node.controllerPort)}`;
  const listener = node.address;
  const replicas = String(Math.min(cluster.length, 3));
  const minInSync = cluster.length === 1 ? '1' : '2';
  const properties = {
    'process.roles': 'broker,controller',
    'node.id': String(node.id),
    ...(cluster.length === 1
      ? { 'controller.quorum.bootstrap.servers': controller }
      : {
          'controller.quorum.voters': cluster
            .map(({ id, controllerPort }) => `${String(id)}@${LOOPBACK}:${String(controllerPort)}`)
            .join(','),
        }),
    'controller.listener.names': 'CONTROLLER',
    ...(options.security === undefined
      ? plaintextListenerProperties(listener, controller, node.links ?? [])
      : secureListenerProperties(options.security, listener, controller)),
    'log.dirs': join(node.dir, 'data'),
    'num.partitions': '1',
    'auto.create.topics.enable': 'false',
    'default.replication.factor': replicas,
    'min.insync.replicas': minInSync,
    'offsets.topic.replication.factor': replicas,
    'offsets.topic.num.partitions': '1',
    'transaction.state.log.replication.factor': replicas,
    'transaction.state.log.min.isr': minInSync,
    'share.coordinator.state.topic.replication.factor': replicas,
    'share.coordinator.state.topic.min.isr': minInSync,
    // A broker that died keeps leading its partitions until the controller fences it: after
    // 3 s of missed heartbeats instead of the default 9 s (npm run chaos -- --scenario broker).
    'broker.session.timeout.ms': '3000',
    'broker.heartbeat.interval.ms': '500',
    'group.initial.rebalance.delay.ms': '0',
    // Stock brokers refuse sessions under 6 s; chaos runs writers with 2 s (KAFKA_SESSION_TIMEOUT_MS).
    'group.min.session.timeout.ms': '1000',
    // The 4.x default of 5 ms tripled request-reply latency (docs/decisions/0039-local-kafka-settings.md, "Local brokers
    // write group state at once").
    'group.coordinator.append.linger.ms': '0',
    ...options.overrides,
  };
  const configFile = join(node.dir, 'server.properties');
  // The JAAS entries of a secured broker hold the admin's password.
  await writeFile(configFile, toProperties(properties), { mode: 0o600 });
  await writeFile(
    join(node.dir, 'log4j2.properties'),
    toProperties({
      'appender.stdout.type': 'Console',
      'appender.stdout.name': 'STDOUT',
      'appender.stdout.layout.type': 'PatternLayout',
      'appender.stdout.layout.pattern': '[%d] %p %m (%c)%n',
      'rootLogger.level': 'INFO',
      'rootLogger.appenderRef.stdout.ref': 'STDOUT',
    }),
  );
  return configFile;
}

function plaintextListenerProperties(
  listener: string,
  controller: string,
  links: readonly KafkaLinkListener[],
): Record<string, string> {
  const address = (port: number) => `${LOOPBACK}:${String(port)}`;
  const bound = links.map((link) => `,${link.name}://${address(link.port)}`).join('');
  const advertised = links.map((link) => `,${link.name}://${address(link.advertisedPort)}`);
  const protocols = links.map((link) => `,${link.name}:PLAINTEXT`).join('');
  return {
    listeners: `PLAINTEXT://${listener},CONTROLLER://${controller}${bound}`,
    'advertised.listeners': `PLAINTEXT://${listener}${advertised.join('')}`,
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.security.protocol.map': `PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT${protocols}`,
  };
}

/** Links are plaintext listeners; names that Kafka would refuse are refused before anything starts. */
function assertLinksValid(options: KafkaOptions): void {
  for (const node of options.nodes) {
    const links = node.links ?? [];
    if (links.length > 0 && options.security !== undefined)
      throw new Error('links to a Kafka node are plaintext listeners: a secured Kafka has none');
    const names = links.map((link) => link.name);
    for (const name of names) {
      if (!/^[A-Z][A-Z0-9_]*$/.test(name) || name === 'PLAINTEXT' || name === 'CONTROLLER')
        throw new Error(
          `a Kafka link's listener name is capitals, digits and _, and not PLAINTEXT or CONTROLLER: got "${name}"`,
        );
    }
    const twice = names.find((name, index) => names.indexOf(name) !== index);
    if (twice !== undefined) throw new Error(`two Kafka links on one node are named ${twice}`);
  }
}

function toProperties(entries: Record<string, string>): string {
  return Object.entries(entries)
    .map(([key, value]) => `${key}=${value}\n`)
    .join('');
}

/**
 * What a formatted storage was made for: plaintext, or SASL_SSL with these users' passwords (the
 * node count is held by the folder's layout, `assertLayoutMatches`).
 */
function securityMode(security: KafkaSecurity | undefined): string {
  if (security === undefined) return 'plaintext';
  const users = Object.entries(security.passwords).toSorted(([a], [b]) => a.localeCompare(b));
  return `sasl_ssl ${createHash('sha256').update(JSON.stringify(users)).digest('hex')}`;
}

function formattedOtherwise(dir: string, before: string, now: string): string {
  const how =
    before === 'plaintext'
      ? 'without --secure'
      : now === 'plaintext'
        ? 'with --secure'
        : 'with other SCRAM users or passwords';
  return `${dir} holds a Kafka formatted ${how}: its users are made when it is formatted. Use another --dir, or delete this one to start afresh.`;
}

/** A Kafka cluster id: 16 random bytes, base64url; Kafka refuses ids that start with '-'. */
function clusterId(): string {
  const id = randomBytes(16).toString('base64url');
  return id.startsWith('-') ? clusterId() : id;
}

async function describeCluster(connection: KafkaConnection, nodes: number): Promise<void> {
  const admin = new Kafka({
    clientId: 'plant-store-readiness',
    ...connection,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    const cluster = await admin.describeCluster();
    if (cluster.controller === null) throw new Error('no active controller yet');
    if (cluster.brokers.length < nodes)
      throw new Error(`${String(cluster.brokers.length)} of ${String(nodes)} brokers registered`);
    // Creates the offsets topic and fails until its coordinator has loaded, so that the first
    // consumer group of a test does not crash with "The coordinator is loading".
    await admin.describeGroups(['plant-store-readiness']);
  } finally {
    await admin.disconnect();
  }
}
