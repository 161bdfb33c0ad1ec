import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { Kafka, ProducerBatch } from 'kafkajs';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { commandPublisher } from '../../services/gateway/src/command-publisher.ts';

/** A Kafka whose producer keeps what it was asked to send, each send held until released. */
function recordingKafka() {
  const sent: ProducerBatch[] = [];
  let release: () => void = () => undefined;
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    sendBatch: (batch: ProducerBatch) => {
      sent.push(batch);
      return new Promise<[]>((resolve) => {
        release = () => {
          resolve([]);
        };
      });
    },
  };
  return {
    kafka: { producer: () => producer } as unknown as Kafka,
    sent,
    release: () => {
      release();
    },
  };
}

const command = (id: number, deadline: number) => ({
  plant: { id: BigInt(id), name: 'Fern' },
  correlationId: `c-${String(id)}`,
  requestId: `r-${String(id)}`,
  deadline,
  trace: ROOT_CONTEXT,
});

describe('commandPublisher', () => {
  it('When commands waited behind a send past their deadline, then they are not sent and their publish fails, while the others go out together', async () => {
    const { kafka, sent, release } = recordingKafka();
    const histogram = new Histogram({
      name: 'h',
      help: 'h',
      labelNames: ['outcome'],
      registers: [new Registry()],
    });
    const publisher = await commandPublisher(
      kafka,
      { create: 'plants.create', replies: 'replies' },
      histogram,
      { warn: () => undefined },
    );

    const first = publisher.publish(command(1, Date.now() + 60_000));
    await expect.poll(() => sent.length).toBe(1);
    const expired = publisher.publish(command(2, Date.now() + 20));
    const waiting = publisher.publish(command(3, Date.now() + 60_000));
    await new Promise((resolve) => setTimeout(resolve, 40));
    release();
    await first;
    await expect.poll(() => sent.length).toBe(2);
    release();

    await expect(expired).rejects.toThrow('the deadline passed before the command could be sent');
    await waiting;
    expect(sent[1]?.topicMessages?.[0]?.messages.map(({ key }) => key)).toEqual(['3']);
  });
});
