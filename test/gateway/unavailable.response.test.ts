import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../support/servers/gateway.ts';

describe('POST /plants when no answer can come', () => {
  it('When no writer answers within the deadline, then 504/5040 says an identical retry is safe', async () => {
    const gateway = await startTestGateway({ writer: false, replyTimeoutMs: 300 });

    const response = await gateway.post('{"id": 55, "name": "Ivy"}');

    expect(response.statusCode).toBe(504);
    expect(response.json()).toEqual({
      error: 5040,
      message:
        'No writer answered within 300 ms; the outcome is unknown and an identical retry is safe',
    });
  });
});

describe('POST /plants when Kafka cannot take the command', () => {
  it('When the create topic cannot take the command, then 503/5030 with Retry-After instead of waiting for the deadline', async () => {
    const gateway = await startTestGateway({ replyTimeoutMs: 20_000 });
    const admin = gateway.kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [gateway.topics.create] });
    await admin.disconnect();

    const response = await gateway.post('{"id": 56, "name": "Ivy"}');

    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({
      error: 5030,
      message: 'Kafka cannot take the command now; retry shortly',
    });
  });
});
