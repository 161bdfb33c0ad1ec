import type { KafkaNodePorts } from '../kafka/node-ports.ts';
import { freePort, LOOPBACK } from '../provision/ports.ts';
import type { Proxy, ToxicSpec, ToxiproxyClient } from './toxiproxy-client.ts';
import { KAFKA_API_VERSIONS, mongoHello, probeAnswer, type ProbeAnswer } from './link-probe.ts';

// A link is one client's path to a server through proxies of its own, so that a fault can be put
// on that path alone: one writer's path to the store, one gateway's path to Kafka. A Kafka link
// has a proxy per node, since a client talks to every node that leads a partition it uses.

/** The faults of one link, applied to each of its proxies. */
export interface LinkFaults {
  /** Resolves with the toxic's name (`<type>_<stream>` when not given), for `update` and `remove`. */
  add(toxic: ToxicSpec): Promise<string>;
  update(
    name: string,
    changes: { toxicity?: number; attributes?: Record<string, number> },
  ): Promise<void>;
  remove(name: string): Promise<void>;
  /** Closes the link's connections and refuses new ones: a cut the client notices at once. */
  cut(): Promise<void>;
  /**
   * Drops every byte both ways, on open connections and new ones, which still connect: a path
   * that loses packets without a reset, which the client notices only by waiting.
   */
  blackHole(): Promise<void>;
  /** Takes every toxic off and undoes a cut. */
  heal(): Promise<void>;
  /**
   * What a request its server answers at once (Kafka's ApiVersions, MongoDB's hello) met on a
   * fresh connection through each of the link's proxies, waiting `waitMs` at most: the proof
   * that a fault took.
   */
  probe(waitMs: number): Promise<ProbeAnswer[]>;
}

export interface KafkaLink {
  readonly name: string;
  /** The proxies' addresses, one per node: the link's KAFKA_BROKERS, comma-joined. */
  readonly brokers: string[];
  readonly faults: LinkFaults;
}

export interface StoreLink {
  readonly name: string;
  /** The store's URI through the link's proxy (MONGODB_URI). */
  readonly uri: string;
  readonly faults: LinkFaults;
}

/** The Kafka listener that link `name` has on each node. */
export function linkListenerName(name: string): string {
  return `LINK_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** `nodes` with a listener per link added to each, on free ports; start Kafka with the result. */
export async function withLinkListeners(
  nodes: readonly KafkaNodePorts[],
  names: readonly string[],
): Promise<KafkaNodePorts[]> {
  const withLinks: KafkaNodePorts[] = [];
  for (const node of nodes) {
    const links = [...(node.links ?? [])];
    for (const name of names)
      links.push({
        name: linkListenerName(name),
        port: await freePort(),
        advertisedPort: await freePort(),
      });
    withLinks.push({ ...node, links });
  }
  return withLinks;
}

/**
 * A proxy per node for each link named in `names`, listening where that node advertises the
 * link's listener. Proxies dial their node per connection, so they may be opened before Kafka
 * starts and outlive its restarts.
 */
export async function openKafkaLinks<Name extends string>(
  toxiproxy: ToxiproxyClient,
  nodes: readonly KafkaNodePorts[],
  names: readonly Name[],
): Promise<Record<Name, KafkaLink>> {
  const links = {} as Record<Name, KafkaLink>;
  for (const name of names) {
    const listener = linkListenerName(name);
    const proxies: Proxy[] = [];
    const brokers: string[] = [];
    for (const [index, node] of nodes.entries()) {
      const link = node.links?.find((candidate) => candidate.name === listener);
      if (link === undefined)
        throw new Error(
          `Kafka node ${String(index + 1)} has no listener ${listener} for link "${name}": start it with withLinkListeners`,
        );
      const proxy = await toxiproxy.createProxy({
        name: `kafka-${name}-node-${String(index + 1)}`,
        listen: `${LOOPBACK}:${String(link.advertisedPort)}`,
        upstream: `${LOOPBACK}:${String(link.port)}`,
      });
      proxies.push(proxy);
      brokers.push(proxy.listen);
    }
    links[name] = { name, brokers, faults: linkFaults(toxiproxy, proxies, KAFKA_API_VERSIONS) };
  }
  return links;
}

/**
 * A proxy to the store of `storeUri` (one host, as the local store has), and that URI through it.
 * The URI says `directConnection=true`: the local store is a replica set, whose member names its
 * own address, and a driver that discovers it connects there, around the proxy.
 */
export async function openStoreLink(
  toxiproxy: ToxiproxyClient,
  name: string,
  storeUri: string,
): Promise<StoreLink> {
  // What the driver takes as hosts: between `//` (or the credentials' `@`) and the next `/` or `?`.
  const hosts = /^mongodb:\/\/(?:[^@/?]*@)?([^/?]*)/.exec(storeUri)?.[1] ?? '';
  if (!/^[^,:]+:\d+$/.test(hosts))
    throw new Error(`a store link needs a mongodb:// URI of one host:port, got hosts "${hosts}"`);
  const uri = new URL(storeUri);
  const proxy = await toxiproxy.createProxy({
    name: `store-${name}`,
    listen: `${LOOPBACK}:${String(await freePort())}`,
    upstream: uri.host,
  });
  uri.host = proxy.listen;
  uri.searchParams.set('directConnection', 'true');
  return { name, uri: uri.toString(), faults: linkFaults(toxiproxy, [proxy], mongoHello()) };
}

function linkFaults(
  toxiproxy: ToxiproxyClient,
  proxies: readonly Proxy[],
  request: Buffer,
): LinkFaults {
  const each = async (change: (proxy: string) => Promise<unknown>) => {
    await Promise.all(proxies.map(({ name }) => change(name)));
  };
  const add = async (toxic: ToxicSpec) => {
    // Toxiproxy's own default, named here so that every proxy of the link agrees.
    const name = toxic.name ?? `${toxic.type}_${toxic.stream ?? 'downstream'}`;
    await each((proxy) => toxiproxy.addToxic(proxy, { ...toxic, name }));
    return name;
  };
  return {
    add,
    async blackHole() {
      await Promise.all(
        (['upstream', 'downstream'] as const).map((stream) =>
          add({ type: 'timeout', stream, attributes: { timeout: 0 } }),
        ),
      );
    },
    update: (name, changes) => each((proxy) => toxiproxy.updateToxic(proxy, name, changes)),
    remove: (name) => each((proxy) => toxiproxy.removeToxic(proxy, name)),
    cut: () => each((proxy) => toxiproxy.setEnabled(proxy, false)),
    heal: () =>
      each(async (proxy) => {
        const { toxics } = await toxiproxy.getProxy(proxy);
        await Promise.all(toxics.map((toxic) => toxiproxy.removeToxic(proxy, toxic.name)));
        await toxiproxy.setEnabled(proxy, true);
      }),
    probe: (waitMs) =>
      Promise.all(proxies.map(({ listen }) => probeAnswer(listen, request, waitMs))),
  };
}
