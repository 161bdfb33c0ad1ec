import { describe, expect, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import { startWriter } from '#writer/writer.ts';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import {
  json,
  PARTITIONS,
  replyHeaders,
  startTestWriter,
  writerOptions,
} from '../support/servers/writer.ts';

describe('Writer answering several partitions at once', () => {
  it('When commands wait on every partition, then one writer answers each by its correlation id, stores an id put on two partitions once in one insert shared by the partitions one fetch brought, and commits every partition to its end', async () => {
    const harness = await startTestWriter({ writer: false });
    const commands = Array.from({ length: PARTITIONS * 10 }, (_, index) => ({
      partition: index % PARTITIONS,
      id: 700 + index,
      name: `Plant ${index}`,
    }));
    // A foreign producer that ignores keys: the same id on two partitions, with two names.
    commands.push(
      { partition: 0, id: 900, name: 'First' },
      { partition: 1, id: 900, name: 'Second' },
    );
    const sent = commands.map((command) => ({
      ...command,
      headers: replyHeaders(harness.topics.replies, replyPartitionHeader(0)),
    }));
    await harness.producer.send({
      topic: harness.topics.create,
      messages: sent.map(({ partition, id, name, headers }) => ({
        partition,
        key: String(id),
        value: JSON.stringify({ id, name }),
        headers,
      })),
    });

    const options = writerOptions(harness);
    const writer = await startWriter(options);
    const replies = await harness.received(harness.topics.replies, sent.length);
    await writer.stop();
    const inserts = (await writer.metrics.storeDuration.get()).values.find(
      ({ metricName, labels }) =>
        metricName === 'plant_store_writer_store_duration_seconds_count' &&
        labels.operation === 'insert',
    );
    // Fetched together, the partitions' batches are gathered into one insert: one per broker
    // leading some of them (kafkajs fetches each leader apart; one broker here).
    const admin = harness.kafka.admin();
    await admin.connect();
    const { brokers } = await admin.describeCluster();
    expect(inserts?.value).toBeLessThanOrEqual(Math.min(brokers.length, PARTITIONS));

    const byCorrelation = new Map(
      replies.map((reply) => [reply.message.headers?.kafka_correlationId?.toString('hex'), reply]),
    );
    const answerTo = (headers: { kafka_correlationId: Buffer }) =>
      json(byCorrelation.get(headers.kafka_correlationId.toString('hex')));
    for (const { id, name, headers } of sent.filter(({ id }) => id !== 900))
      expect(answerTo(headers), `plant ${id}`).toEqual({ status: 200, plant: { name } });
    const stored = await harness.db.collection<StoredPlant>('plants').find({ _id: 900n }).toArray();
    expect(stored).toHaveLength(1);
    const [first, second] = sent.filter(({ id }) => id === 900);
    const answers = [first, second].map((command) => command && answerTo(command.headers));
    const winner = stored[0]?.name;
    expect(answers).toContainEqual({ status: 200, plant: { name: winner } });
    expect(answers).toContainEqual({
      status: 400,
      error: {
        error: 4009,
        message: 'A plant with id 900 already exists with a different name or tag',
      },
    });
    expect(await harness.db.collection('plants').countDocuments()).toBe(PARTITIONS * 10 + 1);

    const [ends, [committed]] = await Promise.all([
      admin.fetchTopicOffsets(harness.topics.create),
      admin.fetchOffsets({ groupId: options.groupId, topics: [harness.topics.create] }),
    ]);
    await admin.disconnect();
    expect(
      committed?.partitions.map(({ partition, offset }) => [partition, offset]).sort(),
    ).toEqual(ends.map(({ partition, high }) => [partition, high]).sort());
  });
});
