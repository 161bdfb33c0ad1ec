import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import {
  freeNodePorts,
  provisionKafka,
  startKafka,
  type KafkaNodePorts,
  type KafkaServer,
} from '../../deploy/local/kafka.ts';
import { cacheRoot } from '../../deploy/local/paths.ts';
import { temporaryDirectory } from './local-servers.ts';

/**
 * A Kafka broker of this test's own that can be stopped and started again on the same data;
 * `nodes` for listeners of its own (test/support/gray-links.ts).
 */
export async function ownKafka(
  overrides: Record<string, string> = {},
  nodes?: readonly KafkaNodePorts[],
) {
  const dir = await temporaryDirectory();
  const options = {
    libsDir: await provisionKafka(cacheRoot(), join(dir, 'provision.log')),
    dir: join(dir, 'kafka'),
    nodes: nodes ?? (await freeNodePorts(1)),
    logFile: join(dir, 'kafka.log'),
    overrides,
  };
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
