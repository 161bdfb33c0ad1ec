import {
  Partitioners,
  type Kafka,
  type PartitionMetadata,
  type Producer,
  type ProducerBatch,
  type ProducerConfig,
  type RecordMetadata,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { idempotentProducer, stablePartitions } from '#shared/kafka/idempotent-producer.ts';

interface ScriptedProducer {
  id: number;
  config: ProducerConfig;
  sent: ProducerBatch[];
  disconnected: boolean;
}

/** kafkajs producers whose sends the test settles one by one, in the order they were made. */
function scriptedKafka() {
  const producers: ScriptedProducer[] = [];
  const pending: { resolve: (written: RecordMetadata[]) => void; reject: (e: Error) => void }[] =
    [];
  let refusals = 0;
  const kafka = {
    producer(config: ProducerConfig) {
      const state: ScriptedProducer = {
        id: producers.length,
        config,
        sent: [],
        disconnected: false,
      };
      producers.push(state);
      return {
        connect: () =>
          refusals-- > 0 ? Promise.reject(new Error('connection refused')) : Promise.resolve(),
        disconnect: () => {
          state.disconnected = true;
          return Promise.resolve();
        },
        sendBatch: (batch: ProducerBatch) => {
          state.sent.push(batch);
          return new Promise<RecordMetadata[]>((resolve, reject) =>
            pending.push({ resolve, reject }),
          );
        },
      } as unknown as Producer;
    },
  } as unknown as Kafka;
  const settle = async (outcome: 'written' | 'failed') => {
    await expect.poll(() => pending.length).toBeGreaterThan(0);
    const next = pending.shift();
    if (outcome === 'written') next?.resolve([]);
    else next?.reject(new Error('request timed out'));
  };
  const refuseConnects = (count: number) => {
    refusals = count;
  };
  return { kafka, producers, settle, refuseConnects, inFlight: () => pending.length };
}

const batch = (topic: string): Omit<ProducerBatch, 'acks'> => ({
  topicMessages: [{ topic, messages: [{ value: topic }] }],
});
const ignore = () => undefined;

/** `first` went out on the first producer, since disconnected, and `then` on a second one. */
function expectReplacedBetween(producers: ScriptedProducer[], first: string, then: string) {
  expect(producers).toHaveLength(2);
  expect(producers[0]).toMatchObject({ disconnected: true, sent: [{ ...batch(first), acks: -1 }] });
  expect(producers[1]).toMatchObject({ disconnected: false, sent: [{ ...batch(then), acks: -1 }] });
}

describe('idempotentProducer', () => {
  it('When it starts, then its kafkajs producer is idempotent and every send asks for acks=all', async () => {
    const { kafka, producers, settle } = scriptedKafka();
    const producer = await idempotentProducer(kafka, { retry: { retries: 2 } }, ignore);

    const sent = producer.sendBatch(batch('a'));
    await settle('written');
    await sent;

    expect(producers[0]?.config).toMatchObject({ idempotent: true, retry: { retries: 2 } });
    expect(producers[0]?.sent).toEqual([{ ...batch('a'), acks: -1 }]);
  });

  it('When two sends are made at once, then the second reaches kafkajs only after the first settled', async () => {
    const { kafka, producers, settle, inFlight } = scriptedKafka();
    const producer = await idempotentProducer(kafka, {}, ignore);

    const first = producer.sendBatch(batch('a'));
    const second = producer.sendBatch(batch('b'));
    await expect.poll(inFlight).toBe(1);
    expect(producers[0]?.sent.map(({ topicMessages }) => topicMessages?.[0]?.topic)).toEqual(['a']);

    await settle('written');
    await settle('written');
    await Promise.all([first, second]);
    expect(producers[0]?.sent.map(({ topicMessages }) => topicMessages?.[0]?.topic)).toEqual([
      'a',
      'b',
    ]);
  });

  it('When a send fails, then it rejects, its producer is disconnected, and the next send goes on a new producer', async () => {
    const { kafka, producers, settle } = scriptedKafka();
    const producer = await idempotentProducer(kafka, {}, ignore);

    const failed = producer.sendBatch(batch('a'));
    const next = producer.sendBatch(batch('b'));
    await settle('failed');
    await expect(failed).rejects.toThrow('request timed out');
    await settle('written');
    await next;

    expectReplacedBetween(producers, 'a', 'b');
  });

  it('When it is refreshed while a send is in flight, then that send ends on its producer, which is then disconnected, and the next send goes on a new one', async () => {
    const { kafka, producers, settle } = scriptedKafka();
    const producer = await idempotentProducer(kafka, {}, ignore);

    const inFlight = producer.sendBatch(batch('a'));
    const refreshed = producer.refresh();
    const next = producer.sendBatch(batch('b'));
    await settle('written');
    await Promise.all([inFlight, refreshed]);
    await settle('written');
    await next;

    expectReplacedBetween(producers, 'a', 'b');
  });

  it('When the new producer cannot connect, then that send rejects and the one after tries again', async () => {
    const { kafka, producers, settle, refuseConnects } = scriptedKafka();
    const producer = await idempotentProducer(kafka, {}, ignore);
    const failed = producer.sendBatch(batch('a'));
    await settle('failed');
    await expect(failed).rejects.toThrow();

    refuseConnects(1);
    await expect(producer.sendBatch(batch('b'))).rejects.toThrow('connection refused');
    const next = producer.sendBatch(batch('c'));
    await settle('written');
    await next;

    expect(producers.map(({ sent }) => sent.length)).toEqual([1, 0, 1]);
    expect(producers[1]?.disconnected).toBe(true);
  });

  it('When it is disconnected, then it waits for the send in flight and refuses the next', async () => {
    const { kafka, producers, settle } = scriptedKafka();
    const producer = await idempotentProducer(kafka, {}, ignore);
    const inFlight = producer.sendBatch(batch('a'));

    const disconnected = producer.disconnect();
    expect(producers[0]?.disconnected).toBe(false);
    await settle('written');
    await Promise.all([inFlight, disconnected]);

    expect(producers[0]?.disconnected).toBe(true);
    await expect(producer.sendBatch(batch('b'))).rejects.toThrow('the producer is disconnected');
  });
});

describe('stablePartitions', () => {
  const partitionMetadata = [0, 1, 2].map((partitionId): PartitionMetadata => ({
    partitionId,
    leader: 1,
    replicas: [1],
    isr: [1],
    offlineReplicas: [],
    partitionErrorCode: 0,
  }));

  it('When a message without a key is partitioned again (a retry), then it keeps its first partition, while new messages still go round-robin', () => {
    const partition = stablePartitions(Partitioners.DefaultPartitioner)();
    const retried = { value: 'copy' };
    const others = [{ value: 'a' }, { value: 'b' }];

    const first = partition({ topic: 't', partitionMetadata, message: retried });
    const fresh = others.map((message) => partition({ topic: 't', partitionMetadata, message }));
    const again = partition({ topic: 't', partitionMetadata, message: retried });

    expect(again).toBe(first);
    expect(new Set([first, ...fresh]).size).toBe(3);
  });

  it('When the partition a message was given is gone from the metadata, then it is partitioned afresh', () => {
    const partition = stablePartitions(Partitioners.DefaultPartitioner)();
    const message = { value: 'copy', partition: 2 };
    expect(partition({ topic: 't', partitionMetadata, message })).toBe(2);
    message.partition = 0;

    expect(
      partition({ topic: 't', partitionMetadata: partitionMetadata.slice(0, 2), message }),
    ).toBe(0);
  });
});
