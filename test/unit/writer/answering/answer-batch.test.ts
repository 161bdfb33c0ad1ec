import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { answerBatch } from '#writer/answering/answer-batch.ts';
import type { Outgoing } from '#writer/answering/outgoing.ts';
import type { KnownOutcomes } from '#writer/store/create-plants.ts';
import type { Reply } from '#shared/contracts/reply.ts';
import { quietAnswering } from '#test/support/clients/answering.ts';

const command = (offset: string, value: string): KafkaMessage =>
  ({
    offset,
    timestamp: String(Date.now()),
    key: null,
    value: Buffer.from(value),
    headers: {
      kafka_replyTopic: Buffer.from('plants.create.replies'),
      kafka_correlationId: Buffer.from(`request-${offset}`),
    },
  }) as unknown as KafkaMessage;

const fern: Reply = { status: 200, plant: { name: 'Fern' } };
const ivy: Reply = { status: 200, plant: { name: 'Ivy' } };

describe('Answering a batch', () => {
  it('When some plants must be read back, then the commands known once inserted are answered before the reads end, and the batch only once every command is', async () => {
    const sent: string[] = [];
    const sender = {
      send: vi.fn((outgoing: readonly Outgoing[]) => {
        for (const { message } of outgoing) sent.push(String(message.headers?.kafka_correlationId));
        return Promise.resolve(new Map());
      }),
      disconnect: vi.fn(),
    };
    let readBack: (replies: Reply[]) => void = () => undefined;
    const createPlants = vi.fn(
      (_plants: unknown, inserted: (known: KnownOutcomes) => void) =>
        new Promise<Reply[]>((resolve) => {
          inserted([fern, undefined]);
          readBack = resolve;
        }),
    );

    let answered = false;
    const batch = answerBatch(
      {
        topic: 'plants.create',
        partition: 0,
        messages: [
          command('1', '{"id": 1, "name": "Fern"}'),
          command('2', '{"id": 2, "name": "Ivy"}'),
          command('3', 'not json'),
        ],
        keepTrying: () => true,
      },
      {
        createPlants,
        sender,
        ...quietAnswering(),
      },
    ).then(() => {
      answered = true;
    });

    await vi.waitFor(() => {
      expect(sent).toContain('request-1');
    });
    expect(sent).toContain('request-3');
    expect(sent).not.toContain('request-2');
    expect(answered).toBe(false);
    readBack([fern, ivy]);
    await batch;

    expect(sent.filter((id) => id === 'request-2')).toHaveLength(1);
    expect(sent.filter((id) => id === 'request-1')).toHaveLength(1);
  });
});
