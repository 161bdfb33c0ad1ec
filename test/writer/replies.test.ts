import { describe, expect, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import { json, replyHeaders, startTestWriter } from '../support/servers/writer.ts';

describe('Writer replies', () => {
  it('When a command carries a binary correlation id and a 4-byte reply partition, then the reply goes there with the id echoed byte for byte', async () => {
    const writer = await startTestWriter();
    const headers = replyHeaders(writer.topics.replies, replyPartitionHeader(2));

    await writer.producer.send({
      topic: writer.topics.create,
      messages: [
        {
          key: '9223372036854775807',
          value: '{"id": 9223372036854775807, "name": "Monstera", "tag": "aroid"}',
          headers,
        },
      ],
    });

    const [reply] = await writer.received(writer.topics.replies, 1);
    expect(reply?.partition).toBe(2);
    expect(reply?.message.headers?.kafka_correlationId).toEqual(headers.kafka_correlationId);
    expect(reply?.message.headers?.['kafka_nest-is-disposed']).toBeDefined();
    expect(json(reply)).toEqual({
      status: 200,
      plant: { name: 'Monstera', tag: 'aroid' },
    });
  });

  it('When a command asks for a reply partition as a decimal string (NestJS), then the reply goes there', async () => {
    const writer = await startTestWriter();

    await writer.producer.send({
      topic: writer.topics.create,
      messages: [
        {
          key: '5',
          value: '{"id": 5, "name": "Fern"}',
          headers: replyHeaders(writer.topics.replies, '1'),
        },
      ],
    });

    const [reply] = await writer.received(writer.topics.replies, 1);
    expect(reply?.partition).toBe(1);
    expect(json(reply)).toEqual({ status: 200, plant: { name: 'Fern' } });
  });

  it('When the same command is delivered twice, then both get the same 200 and the conflicting one gets 4009', async () => {
    const writer = await startTestWriter();
    const command = { key: '77', value: '{"id": 77, "name": "Ficus"}' };

    for (const value of [command.value, command.value, '{"id": 77, "name": "Cactus"}']) {
      await writer.producer.send({
        topic: writer.topics.create,
        messages: [
          {
            key: command.key,
            value,
            headers: replyHeaders(writer.topics.replies, replyPartitionHeader(0)),
          },
        ],
      });
    }

    const replies = (await writer.received(writer.topics.replies, 3)).map(json);
    expect(replies).toEqual([
      { status: 200, plant: { name: 'Ficus' } },
      { status: 200, plant: { name: 'Ficus' } },
      {
        status: 400,
        error: {
          error: 4009,
          message: 'A plant with id 77 already exists with a different name or tag',
        },
      },
    ]);
  });
});
