import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { Kafka, ProducerBatch } from 'kafkajs';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { commandPublisher } from '#gateway/kafka/command-publisher.ts';

/** A Kafka whose producer keeps what it was asked to send, each send held until settled. */
function recordingKafka() {
  const sent: ProducerBatch[] = [];
  let settle: (error?: Error) => void = () => undefined;
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    sendBatch: (batch: ProducerBatch) => {
      sent.push(batch);
      return new Promise<[]>((resolve, reject) => {
        settle = (error) => {
          if (error === undefined) resolve([]);
          else reject(error);
        };
      });
    },
  };
  return {
    kafka: { producer: () => producer } as unknown as Kafka,
    sent,
    release: () => {
      settle();
    },
    fail: (error: Error) => {
      settle(error);
    },
  };
}

async function publisherOf(kafka: Kafka) {
  const histogram = new Histogram({
    name: 'h',
    help: 'h',
    labelNames: ['outcome'],
    registers: [new Registry()],
  });
  return commandPublisher(kafka, {
    topics: { create: 'plants.create', replies: 'replies', replyPartition: 0 },
    lingerMaxMs: 8,
    produceDuration: histogram,
    logger: { warn: () => undefined },
  });
}

const keysOf = (batch: ProducerBatch | undefined) =>
  batch?.topicMessages?.[0]?.messages.map(({ key }) => key);

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
    const publisher = await publisherOf(kafka);

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
    expect(keysOf(sent[1])).toEqual(['3']);
  });

  it('When a send fails, then the commands that waited behind it fail with its error, unsent, and a command published after it is sent', async () => {
    const { kafka, sent, release, fail } = recordingKafka();
    const publisher = await publisherOf(kafka);
    const later = Date.now() + 60_000;

    const first = publisher.publish(command(1, later));
    await expect.poll(() => sent.length).toBe(1);
    const behind = publisher.publish(command(2, later));
    fail(new Error('leader not available'));
    await expect(first).rejects.toThrow('leader not available');
    await expect(behind).rejects.toThrow('leader not available');
    const next = publisher.publish(command(3, later));
    await expect.poll(() => sent.length).toBe(2);
    release();
    await next;

    expect(keysOf(sent[1])).toEqual(['3']);
  });
});

describe('commandPublisher at a steady rate', () => {
  /** A Kafka whose producer answers every send at once, keeping what it was asked to send. */
  function answeringKafka() {
    const sent: ProducerBatch[] = [];
    const producer = {
      connect: () => Promise.resolve(),
      disconnect: () => Promise.resolve(),
      sendBatch: (batch: ProducerBatch) => {
        sent.push(batch);
        return Promise.resolve([]);
      },
    };
    return { kafka: { producer: () => producer } as unknown as Kafka, sent };
  }

  it('When commands arrive 1 ms apart, then sends carry several of them; a lone command after a pause is sent within its turn', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { kafka, sent } = answeringKafka();
    const publisher = await publisherOf(kafka);
    const later = Date.now() + 60_000;

    const published: Promise<void>[] = [];
    for (let id = 1; id <= 200; id++) {
      published.push(publisher.publish(command(id, later)));
      await vi.advanceTimersByTimeAsync(1);
    }
    await vi.advanceTimersByTimeAsync(500);
    await Promise.all(published);
    const steadySends = sent.length;
    const lone = publisher.publish(command(201, later)).then(() => 'sent');
    const fewTurns = (async () => {
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      return 'still waiting';
    })();

    await expect(Promise.race([lone, fewTurns])).resolves.toBe('sent');
    expect(keysOf(sent.at(-1))).toEqual(['201']);
    expect(sent.flatMap(keysOf)).toHaveLength(201);
    expect(steadySends).toBeLessThan(100);
  });
});
