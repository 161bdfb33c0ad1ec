import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { KafkaConnection } from '../../shared/kafka-connection.ts';
import {
  ADMIN,
  scramConnection,
  scramUsers,
  secureListenerProperties,
  type KafkaSecurity,
} from './kafka-security.ts';
import { LOOPBACK } from './ports.ts';
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
        '-q',
        '-B',
        `-Dkafka.version=${KAFKA_VERSION}`,
        'dependency:copy-dependencies',
        '-DoutputDirectory=libs',
        '-DincludeScope=runtime',
      ],
      { cwd: dir, logFile },
    );
  });
  return join(home, 'libs');
}

export interface KafkaOptions {
  libsDir: string;
  /** Holds the configuration and the data; reusing it keeps topics, messages and offsets. */
  dir: string;
  port: number;
  controllerPort: number;
  logFile: string;
  /** Broker settings over the project's (tests: limits to run into). */
  overrides?: Record<string, string>;
  /** SASL_SSL and ACLs instead of plaintext for everyone. */
  security?: KafkaSecurity;
}

export interface KafkaServer {
  readonly brokers: string;
  /** How a super user connects: to apply ACLs, to check readiness. */
  readonly admin: KafkaConnection;
  readonly process: ServerProcess;
  stop(): Promise<void>;
}

export async function startKafka(options: KafkaOptions): Promise<KafkaServer> {
  const configFile = await writeConfig(options);
  const java = (mainClass: string, ...args: string[]) => [
    '-Xms256m',
    '-Xmx512m',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${join(options.dir, 'log4j2.properties')}`,
    '-cp',
    join(options.libsDir, '*'),
    mainClass,
    ...args,
  ];
  const formattedAs = join(options.dir, 'formatted-as');
  const security = securityMode(options.security);
  if (existsSync(join(options.dir, 'data', 'meta.properties'))) {
    const before = existsSync(formattedAs) ? await readFile(formattedAs, 'utf8') : 'plaintext';
    if (before !== security) throw new Error(formattedOtherwise(options.dir, before, security));
  } else {
    await runLogged(
      'java',
      java(
        'kafka.tools.StorageTool',
        'format',
        '-t',
        clusterId(),
        '-c',
        configFile,
        '--standalone',
        ...(options.security === undefined ? [] : scramUsers(options.security)),
      ),
      {
        cwd: options.dir,
        logFile: options.logFile,
        secrets: Object.values(options.security?.passwords ?? {}),
      },
    );
    await writeFile(formattedAs, security);
  }
  const server = startServerProcess({
    name: `Kafka ${KAFKA_VERSION}`,
    command: 'java',
    args: java(MAIN_CLASS, configFile),
    logFile: options.logFile,
  });
  const brokers = `${LOOPBACK}:${options.port}`;
  const admin =
    options.security === undefined
      ? { brokers: [brokers] }
      : scramConnection(brokers, options.security, ADMIN);
  await waitUntilReady(server, () => describeCluster(admin), 90_000);
  return { brokers, admin, process: server, stop: () => server.stop() };
}

async function writeConfig(options: KafkaOptions): Promise<string> {
  await mkdir(join(options.dir, 'data'), { recursive: true });
  const controller = `${LOOPBACK}:${options.controllerPort}`;
  const listener = `${LOOPBACK}:${options.port}`;
  const properties = {
    'process.roles': 'broker,controller',
    'node.id': '1',
    'controller.quorum.bootstrap.servers': controller,
    'controller.listener.names': 'CONTROLLER',
    ...(options.security === undefined
      ? {
          listeners: `PLAINTEXT://${listener},CONTROLLER://${controller}`,
          'advertised.listeners': `PLAINTEXT://${listener}`,
          'inter.broker.listener.name': 'PLAINTEXT',
          'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
        }
      : secureListenerProperties(options.security, listener, controller)),
    'log.dirs': join(options.dir, 'data'),
    'num.partitions': '1',
    'auto.create.topics.enable': 'false',
    'default.replication.factor': '1',
    'min.insync.replicas': '1',
    'offsets.topic.replication.factor': '1',
    'offsets.topic.num.partitions': '1',
    'transaction.state.log.replication.factor': '1',
    'transaction.state.log.min.isr': '1',
    'share.coordinator.state.topic.replication.factor': '1',
    'share.coordinator.state.topic.min.isr': '1',
    'group.initial.rebalance.delay.ms': '0',
    // The 4.x default of 5 ms tripled request-reply latency (DESIGN.md §6).
    'group.coordinator.append.linger.ms': '0',
    ...options.overrides,
  };
  const configFile = join(options.dir, 'server.properties');
  // The JAAS entries of a secured broker hold the admin's password.
  await writeFile(configFile, toProperties(properties), { mode: 0o600 });
  await writeFile(
    join(options.dir, 'log4j2.properties'),
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

function toProperties(entries: Record<string, string>): string {
  return Object.entries(entries)
    .map(([key, value]) => `${key}=${value}\n`)
    .join('');
}

/** What a formatted storage was made for: plaintext, or SASL_SSL with these users' passwords. */
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

async function describeCluster(connection: KafkaConnection): Promise<void> {
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
    // Creates the offsets topic and fails until its coordinator has loaded, so that the first
    // consumer group of a test does not crash with "The coordinator is loading".
    await admin.describeGroups(['plant-store-readiness']);
  } finally {
    await admin.disconnect();
  }
}
