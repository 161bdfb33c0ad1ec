import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LOOPBACK } from '../provision/ports.ts';
import type { ClusterNode, KafkaOptions } from './cluster-layout.ts';
import type { KafkaLinkListener } from './node-ports.ts';
import { secureListenerProperties } from './security.ts';

/** Links are plaintext listeners; names that Kafka would refuse are refused before anything starts. */
export function assertLinksValid(options: KafkaOptions): void {
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

/** Writes the node's `server.properties` and `log4j2.properties`; returns the former's path. */
export async function writeConfig(
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

function toProperties(entries: Record<string, string>): string {
  return Object.entries(entries)
    .map(([key, value]) => `${key}=${value}\n`)
    .join('');
}
