import { describe, expect, it, vi } from 'vitest';
import {
  linkListenerName,
  openKafkaLinks,
  openStoreLink,
  withLinkListeners,
} from '#local/faults/gray-links.ts';
import { consecutiveNodePorts } from '#local/kafka/node-ports.ts';
import { startKafka } from '#local/kafka/start-kafka.ts';
import { provisionToxiproxy } from '#local/faults/toxiproxy.ts';
import { toxiproxyClient } from '#local/faults/toxiproxy-client.ts';
import { temporaryDirectory } from '#test/support/servers/local-servers.ts';

const nodes = (count: number) => consecutiveNodePorts({ port: 9092, controllerPort: 9093 }, count);
/** Nothing listens there: a call that reached it would fail with a connection error. */
const unreachable = toxiproxyClient('http://127.0.0.1:1');

describe('Gray links to Kafka and the store', () => {
  it('When three nodes get two links, then each node has a listener per link on ports of its own', async () => {
    const linked = await withLinkListeners(nodes(3), ['gateway-1', 'writer_2']);

    expect(linked.map((node) => node.links?.map((link) => link.name))).toEqual([
      ['LINK_GATEWAY_1', 'LINK_WRITER_2'],
      ['LINK_GATEWAY_1', 'LINK_WRITER_2'],
      ['LINK_GATEWAY_1', 'LINK_WRITER_2'],
    ]);
    const ports = linked.flatMap((node) =>
      (node.links ?? []).flatMap((link) => [link.port, link.advertisedPort]),
    );
    expect(new Set(ports).size).toBe(12);
    expect(linkListenerName('a')).toBe('LINK_A');
  });

  it('When a link is opened on nodes started without its listener, then it is refused with what to do', async () => {
    await expect(openKafkaLinks(unreachable, nodes(1), ['a'])).rejects.toThrow(
      'Kafka node 1 has no listener LINK_A for link "a": start it with withLinkListeners',
    );
  });

  it('When a store link is asked for a URI of several hosts, then it is refused', async () => {
    await expect(
      openStoreLink(unreachable, 'w', 'mongodb://127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0'),
    ).rejects.toThrow(
      'a store link needs a mongodb:// URI of one host:port, got hosts "127.0.0.1:1,127.0.0.1:2"',
    );
  });

  it('When Kafka links are secured, misnamed or named twice, then Kafka is refused before anything starts', async () => {
    const options = { libsDir: '/nonexistent', logFile: '/dev/null', dir: '/nonexistent' };
    const link = { name: 'LINK_A', port: 1, advertisedPort: 2 };
    const withLinks = (...links: (typeof link)[]) => [{ port: 9092, controllerPort: 9093, links }];

    await expect(
      startKafka({
        ...options,
        nodes: withLinks(link),
        security: {} as NonNullable<Parameters<typeof startKafka>[0]['security']>,
      }),
    ).rejects.toThrow('links to a Kafka node are plaintext listeners: a secured Kafka has none');
    await expect(
      startKafka({ ...options, nodes: withLinks({ ...link, name: 'CONTROLLER' }) }),
    ).rejects.toThrow(
      `a Kafka link's listener name is capitals, digits and _, and not PLAINTEXT or CONTROLLER: got "CONTROLLER"`,
    );
    await expect(
      startKafka({ ...options, nodes: withLinks({ ...link, name: 'link-a' }) }),
    ).rejects.toThrow('got "link-a"');
    await expect(startKafka({ ...options, nodes: withLinks(link, link) })).rejects.toThrow(
      'two Kafka links on one node are named LINK_A',
    );
  });

  it('When toxiproxy is not built yet and Go is missing, then Go is named with how to install it', async () => {
    vi.stubEnv('PATH', await temporaryDirectory());
    try {
      await expect(provisionToxiproxy(await temporaryDirectory(), '/dev/null')).rejects.toThrow(
        /Missing go on PATH:\n {2}- go, for building toxiproxy .*: install Go 1\.22/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
