import { freePort } from '../provision/ports.ts';

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
