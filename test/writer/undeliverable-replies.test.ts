import { ConfigResourceTypes, type IHeaders } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { uniqueName } from '../support/servers/kafka.ts';
import { metric } from '../support/checks/metrics.ts';
import {
  json,
  replyHeaders,
  startTestWriter,
  type WriterHarness,
} from '../support/servers/writer.ts';

/** Sends a command whose reply cannot be delivered, then a normal one, and returns its reply. */
async function refusedThenNormal(writer: WriterHarness, id: number, headers: IHeaders) {
  await writer.producer.send({
    topic: writer.topics.create,
    messages: [{ key: String(id), value: `{"id": ${id}, "name": "Orphan"}`, headers }],
  });
  await writer.sendCommand(String(id + 1), `{"id": ${id + 1}, "name": "Next"}`);
  const replies = await writer.received(writer.topics.replies, 1);
  return replies.map(json);
}

async function expectCopiedToDlq(writer: WriterHarness, id: number, reason: RegExp) {
  const [copy] = await writer.received(writer.topics.dlq, 1);
  expect(copy?.message.key?.toString()).toBe(String(id));
  expect(copy?.message.headers?.['error-reply']?.toString()).toMatch(reason);
  const stored = await writer.db.collection<StoredPlant>('plants').findOne({ _id: BigInt(id) });
  expect(stored).toMatchObject({ name: 'Orphan' });
}

describe('Writer and replies that cannot be delivered', () => {
  it('When the reply topic was never created, then the plant is stored, the command is copied to the DLQ with why, counted, and the next command is answered', async () => {
    const writer = await startTestWriter();
    const headers = replyHeaders(uniqueName('missing'), replyPartitionHeader(0));

    const replies = await refusedThenNormal(writer, 41, headers);

    expect(replies).toEqual([{ status: 200, plant: { name: 'Next' } }]);
    await expectCopiedToDlq(writer, 41, /^send_failed: .*does not host this topic-partition/);
    expect(
      metric(await writer.scrape(), 'plant_store_writer_undeliverable_replies_total', {
        reason: 'send_failed',
      }),
    ).toBe(1);
  });

  it('When the reply topic is deleted after a first reply reached it, then the next reply to it is given up and later commands to other topics are answered', async () => {
    const writer = await startTestWriter();
    const admin = writer.kafka.admin();
    await admin.connect();
    const temporary = uniqueName('temporary-replies');
    await admin.createTopics({ topics: [{ topic: temporary }], waitForLeaders: true });
    await writer.producer.send({
      topic: writer.topics.create,
      messages: [
        { key: '43', value: '{"id": 43, "name": "First"}', headers: replyHeaders(temporary, '0') },
      ],
    });
    await expect
      .poll(() => admin.fetchTopicOffsets(temporary))
      .toEqual([expect.objectContaining({ partition: 0, high: '1' })]);
    await admin.deleteTopics({ topics: [temporary] });
    await admin.disconnect();

    const replies = await refusedThenNormal(writer, 44, replyHeaders(temporary, '0'));

    expect(replies).toEqual([{ status: 200, plant: { name: 'Next' } }]);
    await expectCopiedToDlq(writer, 44, /^send_failed: /);
    await writer.sendCommand('46', '{"id": 46, "name": "Later"}');
    expect((await writer.received(writer.topics.replies, 2)).map(json)).toContainEqual({
      status: 200,
      plant: { name: 'Later' },
    });
  });

  it('When the reply partition is past the last partition, then the reply is given up and the next command is answered', async () => {
    const writer = await startTestWriter();

    const replies = await refusedThenNormal(writer, 47, replyHeaders(writer.topics.replies, '7'));

    expect(replies).toEqual([{ status: 200, plant: { name: 'Next' } }]);
    await expectCopiedToDlq(writer, 47, /^send_failed: /);
  });

  it('When a reply to a missing topic is being retried on one partition, then commands on another partition are answered before it is given up', async () => {
    const writer = await startTestWriter();
    const missing = replyHeaders(uniqueName('missing'), replyPartitionHeader(0));

    await writer.producer.send({
      topic: writer.topics.create,
      messages: [
        { partition: 0, key: '60', value: '{"id": 60, "name": "Orphan"}', headers: missing },
      ],
    });
    for (const id of [61, 62, 63]) {
      const name = `Beside ${String(id)}`;
      await writer.producer.send({
        topic: writer.topics.create,
        messages: [
          {
            partition: 1,
            key: String(id),
            value: `{"id": ${String(id)}, "name": "${name}"}`,
            headers: replyHeaders(writer.topics.replies, replyPartitionHeader(0)),
          },
        ],
      });
      const reply = await writer.arrival(writer.topics.replies, ({ value }) =>
        Boolean(value?.toString().includes(`"${name}"`)),
      );
      expect(json(reply)).toEqual({ status: 200, plant: { name } });
    }

    expect(await writer.received(writer.topics.dlq, 0)).toEqual([]);
    await expectCopiedToDlq(writer, 60, /^send_failed: /);
  });

  it('When a command names a reply topic that does not exist yet, then the command beside it in its batch is answered while its reply is retried, and its reply is delivered once the topic appears', async () => {
    const writer = await startTestWriter();
    const late = uniqueName('late-replies');

    await writer.producer.send({
      topic: writer.topics.create,
      messages: [
        {
          partition: 0,
          key: '70',
          value: '{"id": 70, "name": "Late"}',
          headers: replyHeaders(late, replyPartitionHeader(0)),
        },
        {
          partition: 0,
          key: '71',
          value: '{"id": 71, "name": "Beside"}',
          headers: replyHeaders(writer.topics.replies, replyPartitionHeader(0)),
        },
      ],
    });
    const [beside] = await writer.received(writer.topics.replies, 1);
    expect(json(beside)).toEqual({ status: 200, plant: { name: 'Beside' } });

    const admin = writer.kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: late }], waitForLeaders: true });
    await expect
      .poll(() => admin.fetchTopicOffsets(late))
      .toEqual([expect.objectContaining({ partition: 0, high: '1' })]);
    await admin.disconnect();
    expect(await writer.received(writer.topics.dlq, 0)).toEqual([]);
  });

  it.each([
    ['the command topic', (writer: WriterHarness) => writer.topics.create, /^own_topic: /],
    ['the dead-letter topic', (writer: WriterHarness) => writer.topics.dlq, /^own_topic: /],
    ['empty', () => '', /^invalid_topic: /],
    ['longer than Kafka allows', () => 'r'.repeat(250), /^invalid_topic: /],
  ])(
    'When the reply topic is %s, then nothing is sent there, the command is copied to the DLQ with why, and the next command is answered',
    async (_case, replyTopic, reason) => {
      const writer = await startTestWriter();

      const replies = await refusedThenNormal(
        writer,
        48,
        replyHeaders(replyTopic(writer), replyPartitionHeader(0)),
      );

      expect(replies).toEqual([{ status: 200, plant: { name: 'Next' } }]);
      await expectCopiedToDlq(writer, 48, reason);
      const commands = await writer.received(writer.topics.create, 2);
      expect(commands).toHaveLength(2);
    },
  );
});

describe('Writer and a dead-letter topic that refuses a copy', () => {
  it('When the DLQ allows less than the command topic and an invalid command is larger, then the copy goes without its value, marked, and the next command is answered', async () => {
    const writer = await startTestWriter();
    const admin = writer.kafka.admin();
    await admin.connect();
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: writer.topics.dlq,
          configEntries: [{ name: 'max.message.bytes', value: '500000' }],
        },
      ],
    });
    await admin.disconnect();
    const headers = replyHeaders(writer.topics.replies, replyPartitionHeader(0));

    await writer.producer.send({
      topic: writer.topics.create,
      messages: [{ key: '49', value: 'x'.repeat(600_000), headers }],
    });
    await writer.sendCommand('50', '{"id": 50, "name": "Next"}');

    const [copy] = await writer.received(writer.topics.dlq, 1);
    expect(copy?.message.key?.toString()).toBe('49');
    expect(copy?.message.value).toBeNull();
    expect(copy?.message.headers?.['error-code']?.toString()).toBe('4001');
    expect(copy?.message.headers?.['error-copy-truncated']?.toString()).toMatch(
      /^command offset \d+$/,
    );
    // Its 4001 reply may arrive twice: the broker took it in the send that the copy failed.
    const next = await writer.arrival(writer.topics.replies, ({ value }) =>
      Boolean(value?.toString().includes('"Next"')),
    );
    expect(json(next)).toEqual({ status: 200, plant: { name: 'Next' } });
    const [refused] = await writer.received(writer.topics.replies, 1);
    expect(json(refused)).toMatchObject({ status: 400, error: { error: 4001 } });
  });
});
