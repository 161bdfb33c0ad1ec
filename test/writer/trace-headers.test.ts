import type { IHeaders } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import { json, replyHeaders, startTestWriter } from '../support/servers/writer.ts';

const VALID_TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('Writer and trace headers from other producers', () => {
  it('When commands from another producer carry unreadable trace headers, then each is stored and answered 200 (without the SDK, its reply has no traceparent)', async () => {
    const writer = await startTestWriter();
    const garbage: IHeaders[] = [
      { traceparent: 'not a trace' },
      { traceparent: Buffer.from([0xff, 0xfe, 0x00, 0x2d]) },
      { traceparent: '00-00000000000000000000000000000000-0000000000000000-01' },
      { traceparent: `ff-${VALID_TRACEPARENT.slice(3)}` },
      { traceparent: [VALID_TRACEPARENT.replace('-01', '-zz'), 'second'] },
      { traceparent: '', tracestate: '=,=,\u0000' },
    ];

    await writer.producer.send({
      topic: writer.topics.create,
      messages: garbage.map((headers, index) => ({
        key: String(100 + index),
        value: `{"id": ${String(100 + index)}, "name": "Cress"}`,
        headers: { ...replyHeaders(writer.topics.replies, replyPartitionHeader(0)), ...headers },
      })),
    });

    const replies = await writer.received(writer.topics.replies, garbage.length);
    expect(replies.map(json)).toEqual(
      garbage.map(() => ({ status: 200, plant: { name: 'Cress' } })),
    );
    for (const reply of replies) expect(reply.message.headers).not.toHaveProperty('traceparent');
    expect(await writer.db.collection('plants').countDocuments()).toBe(garbage.length);
  });
});
