import { join } from 'node:path';
import {
  openKafkaLinks,
  openStoreLink,
  withLinkListeners,
  type LinkFaults,
} from '#local/faults/gray-links.ts';
import { freeNodePorts } from '#local/kafka/node-ports.ts';
import { cacheRoot } from '#local/provision/paths.ts';
import { freePort, LOOPBACK } from '#local/provision/ports.ts';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '#local/stack.ts';
import { provisionToxiproxy, startToxiproxy } from '#local/faults/toxiproxy.ts';

/**
 * Each process's own path through toxiproxy, so that a gray scenario can fault one of them: every
 * writer reaches the store through a store link, every gateway reaches Kafka through a Kafka link
 * (the writers reach Kafka directly: no scenario faults that path).
 */
export interface GrayLinks {
  /** The variables that send process `name` through its link; a writer's also fix its health port. */
  envOf(name: string): Record<string, string>;
  /** The writer's store link. */
  store(name: string): LinkFaults;
  /** The gateway's Kafka link. */
  kafka(name: string): LinkFaults;
  /** Where the writer `name` answers `/readyz`. */
  healthUrlOf(name: string): string;
  stop(): Promise<void>;
}

export interface GrayStackOptions extends LocalStackOptions {
  writers: readonly string[];
  gateways: readonly string[];
}

/**
 * Toxiproxy, then the local stack with a Kafka listener per gateway's link, then a store link per
 * writer. Only the gray scenarios start one: the other scenarios' figures stay comparable.
 */
export async function startGrayStack(
  options: GrayStackOptions,
): Promise<{ stack: LocalStack; links: GrayLinks }> {
  const logDir = join(options.dir, 'logs');
  const binary = await provisionToxiproxy(cacheRoot(), join(logDir, 'provision.log'));
  const toxiproxy = await startToxiproxy({ binary, logFile: join(logDir, 'toxiproxy.log') });
  try {
    const kafkaPorts = await withLinkListeners(
      await freeNodePorts(options.brokers ?? 1),
      options.gateways,
    );
    const kafkaLinks = await openKafkaLinks(toxiproxy.client, kafkaPorts, options.gateways);
    const kafkaFaults = new Map(
      Object.entries(kafkaLinks).map(([name, { faults }]) => [name, faults]),
    );
    const stack = await startLocalStack({ ...options, kafkaPorts });
    const env = new Map<string, Record<string, string>>();
    const stores = new Map<string, LinkFaults>();
    const health = new Map<string, string>();
    try {
      for (const name of options.writers) {
        const link = await openStoreLink(toxiproxy.client, name, stack.mongoUri);
        const port = await freePort();
        stores.set(name, link.faults);
        health.set(name, `http://${LOOPBACK}:${String(port)}`);
        env.set(name, { MONGODB_URI: link.uri, METRICS_PORT: String(port) });
      }
    } catch (error) {
      await stack.stop();
      throw error;
    }
    for (const [name, { brokers }] of Object.entries(kafkaLinks))
      env.set(name, { KAFKA_BROKERS: brokers.join(',') });
    const known = <T>(map: Map<string, T>, name: string, what: string): T => {
      const value = map.get(name);
      if (value === undefined) throw new Error(`the gray run has no ${what} for ${name}`);
      return value;
    };
    return {
      stack,
      links: {
        envOf: (name) => known(env, name, 'link'),
        store: (name) => known(stores, name, 'store link'),
        kafka: (name) => known(kafkaFaults, name, 'Kafka link'),
        healthUrlOf: (name) => known(health, name, 'health port'),
        stop: () => toxiproxy.stop(),
      },
    };
  } catch (error) {
    await toxiproxy.stop();
    throw error;
  }
}
