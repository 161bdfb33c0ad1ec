import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { brokerCount } from '#local/kafka/broker-count.ts';
import { consecutiveNodePorts } from '#local/kafka/node-ports.ts';
import { startKafka } from '#local/kafka/start-kafka.ts';
import { startLocalStack } from '#local/stack.ts';
import { temporaryDirectory } from '#test/support/servers/local-servers.ts';

const nodes = (count: number) => consecutiveNodePorts({ port: 9092, controllerPort: 9093 }, count);

/** A Kafka directory formatted as one node (`data/`) or as a cluster's first node (`node-1/data/`). */
async function formatted(layout: 'data' | 'node-1/data'): Promise<string> {
  const dir = await temporaryDirectory();
  mkdirSync(join(dir, layout), { recursive: true });
  writeFileSync(join(dir, layout, 'meta.properties'), 'node.id=1\n');
  return dir;
}

describe('A local Kafka of one node or three', () => {
  it('When --brokers is 1 or 3, then it is taken; anything else is refused with what it takes', () => {
    expect(brokerCount(undefined)).toBe(1);
    expect(brokerCount('3')).toBe(3);
    expect(() => brokerCount('2')).toThrow(
      '--brokers takes 1 (one node) or 3 (a replicated cluster), got "2"',
    );
    expect(nodes(3)).toEqual([
      { port: 9092, controllerPort: 9093 },
      { port: 9094, controllerPort: 9095 },
      { port: 9096, controllerPort: 9097 },
    ]);
  });

  it('When a directory formatted for one node is started as three, or the reverse, then it is refused before anything starts', async () => {
    const single = await formatted('data');
    const cluster = await formatted('node-1/data');
    const options = { libsDir: '/nonexistent', logFile: '/dev/null' };
    await expect(startKafka({ ...options, dir: single, nodes: nodes(3) })).rejects.toThrow(
      `${single} holds a Kafka of one node, not of 3. Use another --dir, or delete this one to start afresh.`,
    );
    await expect(startKafka({ ...options, dir: cluster, nodes: nodes(1) })).rejects.toThrow(
      `${cluster} holds a Kafka of several nodes, not of 1.`,
    );
    await expect(startKafka({ ...options, dir: cluster, nodes: nodes(3) })).rejects.toThrow(
      `${cluster} holds a Kafka of fewer nodes than 3.`,
    );
  });

  it('When the ports given are for another number of brokers, then the stack refuses to start', async () => {
    await expect(
      startLocalStack({ dir: await temporaryDirectory(), brokers: 3, kafkaPorts: nodes(1) }),
    ).rejects.toThrow("1 Kafka nodes' ports given for 3 brokers");
  });
});
