import { describe, expect, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import { json, replyHeaders, startTestWriter } from '../support/servers/writer.ts';

describe('Writer and invalid commands', () => {
  it('When a command is not JSON, then it lands on the DLQ with its bytes and error headers, gets 4001 before the next command on its partition gets its 200', async () => {
    const writer = await startTestWriter();
    const poison = Buffer.from([0x7b, 0x00, 0xff, 0x22]);
    const headers = replyHeaders(writer.topics.replies, replyPartitionHeader(0));

    await writer.producer.send({
      topic: writer.topics.create,
      messages: [
        { key: '11', value: poison, headers },
        {
          key: '11',
          value: '{"id": 11, "name": "Aloe"}',
          headers: replyHeaders(writer.topics.replies, replyPartitionHeader(0)),
        },
      ],
    });

    const [deadLetter] = await writer.received(writer.topics.dlq, 1);
    expect(deadLetter?.message.value).toEqual(poison);
    expect(deadLetter?.message.key?.toString()).toBe('11');
    expect(deadLetter?.message.headers?.['error-code']?.toString()).toBe('4001');
    expect(deadLetter?.message.headers?.kafka_correlationId).toEqual(headers.kafka_correlationId);
    const replies = await writer.received(writer.topics.replies, 2);
    expect(replies[0]?.message.headers?.kafka_correlationId).toEqual(headers.kafka_correlationId);
    expect(replies.map(json)).toMatchObject([
      { status: 400, error: { error: 4001 } },
      { status: 200, plant: { name: 'Aloe' } },
    ]);
  });

  it('When a command is JSON but not a NewPlant, then it gets 4000 and a DLQ copy', async () => {
    const writer = await startTestWriter();

    await writer.producer.send({
      topic: writer.topics.create,
      messages: [
        {
          key: '12',
          value: '{"id": "12", "name": "Aloe"}',
          headers: replyHeaders(writer.topics.replies, replyPartitionHeader(1)),
        },
      ],
    });

    const [reply] = await writer.received(writer.topics.replies, 1);
    expect(json(reply)).toEqual({
      status: 400,
      error: {
        error: 4000,
        message: 'id must be an integer from -9223372036854775808 to 9223372036854775807',
      },
    });
    const [deadLetter] = await writer.received(writer.topics.dlq, 1);
    expect(deadLetter?.message.headers?.['error-code']?.toString()).toBe('4000');
  });
});
