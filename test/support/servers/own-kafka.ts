import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { freeNodePorts, type KafkaNodePorts } from '#local/kafka/node-ports.ts';
import { provisionKafka } from '#local/kafka/jars.ts';
import { startKafka, type KafkaServer } from '#local/kafka/start-kafka.ts';
import { cacheRoot } from '#local/provision/paths.ts';
import { temporaryDirectory } from './local-servers.ts';

/**
 * A Kafka broker of this test's own that can be stopped and started again on the same data;
 * `nodes` for listeners of its own (test/support/servers/gray-links.ts).
 */
export async function ownKafka(
  overrides: Record<string, string> = {},
  nodes?: readonly KafkaNodePorts[],
) {
  const options = await ownKafkaOptions(nodes ?? (await freeNodePorts(1)), overrides);
  let server: KafkaServer = await startKafka(options);
  onTestFinished(() => server.stop());
  return {
    brokers: server.brokers,
    stop: () => server.stop(),
    async start() {
      server = await startKafka(options);
    },
  };
}

/** `count` Kafka nodes of this test's own, each a broker and a controller, stopped when it ends. */
export async function ownKafkaCluster(count: number): Promise<KafkaServer> {
  const cluster = await startKafka(await ownKafkaOptions(await freeNodePorts(count)));
  onTestFinished(() => cluster.stop());
  return cluster;
}

/** Where a Kafka of this test's own keeps its data and logs, in a directory of its own. */
async function ownKafkaOptions(
  nodes: readonly KafkaNodePorts[],
  overrides: Record<string, string> = {},
) {
  const dir = await temporaryDirectory();
  return {
    libsDir: await provisionKafka(cacheRoot(), join(dir, 'provision.log')),
    dir: join(dir, 'kafka'),
    nodes,
    logFile: join(dir, 'kafka.log'),
    overrides,
  };
}
