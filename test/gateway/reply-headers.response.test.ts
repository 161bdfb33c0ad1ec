import { describe, expect, it } from 'vitest';
import { HEADERS, readReplyPartition } from '#shared/contracts/kafka.ts';
import { encodeReply } from '#shared/contracts/reply.ts';
import { headerText } from '#shared/kafka/messages.ts';
import { startTestGateway } from '../support/servers/gateway.ts';

describe('POST /plants when a reply carries its correlation id more than once', () => {
  it('When a reply sends kafka_correlationId twice, then the request waiting for its first value gets it', async () => {
    const gateway = await startTestGateway({ writer: false });
    const answer = gateway.post('{"id": 61, "name": "Pilea"}');
    const [command] = await gateway.received(gateway.topics.create, 1);
    const correlationId = headerText(command?.message.headers, HEADERS.correlationId) ?? '';
    const partition = readReplyPartition(
      command?.message.headers?.[HEADERS.replyPartition] as Buffer,
    );
    if (partition === undefined) throw new Error('the command names no reply partition');

    // The partition the gateway reads, so the reply naming the request second arrives first and
    // is passed over.
    await gateway.producer.send({
      topic: gateway.topics.replies,
      messages: [
        {
          partition,
          headers: { [HEADERS.correlationId]: ['another-request', correlationId] },
          value: encodeReply({ status: 200, plant: { name: 'Not this one' } }),
        },
        {
          partition,
          headers: { [HEADERS.correlationId]: [correlationId, 'another-request'] },
          value: encodeReply({ status: 200, plant: { name: 'Pilea' } }),
        },
      ],
    });

    const response = await answer;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ name: 'Pilea' });
  });
});
