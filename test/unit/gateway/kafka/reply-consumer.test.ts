import { Counter } from 'prom-client';
import { EventEmitter } from 'node:events';
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { startReplyConsumer } from '#gateway/kafka/reply-consumer.ts';
import { replyWaiter } from '#gateway/kafka/reply-waiter.ts';

/** A kafkajs consumer whose group joins and batches the test makes happen. */
function scriptedKafka() {
  const emitter = new EventEmitter();
  const events = { GROUP_JOIN: 'consumer.group_join', FETCH_START: 'consumer.fetch_start' };
  let eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
  const seek = vi.fn();
  const consumer = {
    events,
    seek,
    on: (event: string, listener: (event: unknown) => void) => emitter.on(event, listener),
    connect: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    run: (config: { eachBatch: (payload: EachBatchPayload) => Promise<void> }) => {
      eachBatch = config.eachBatch;
      return Promise.resolve();
    },
  } as unknown as Consumer;
  const admin = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    fetchTopicOffsets: () =>
      Promise.resolve([0, 1, 2].map((partition) => ({ partition, high: '40', low: '0' }))),
  };
  return {
    kafka: { consumer: () => consumer, admin: () => admin } as unknown as Kafka,
    seek,
    join: (partitions: number[]) =>
      emitter.emit(events.GROUP_JOIN, { payload: { memberAssignment: { replies: partitions } } }),
    batch: (partition: number, offsets: string[]) =>
      eachBatch?.({
        batch: {
          topic: 'replies',
          partition,
          messages: offsets.map((offset) => ({ offset, headers: {}, value: null })),
        },
      } as unknown as EachBatchPayload),
  };
}

describe('The gateway reply consumer restarted by kafkajs', () => {
  it('When kafkajs restarts the consumer and it joins again, then each partition goes on after the last reply read, or from where it began when nothing was read there, not from the end of the topic', async () => {
    const script = scriptedKafka();
    await startReplyConsumer(script.kafka, 'replies', replyWaiter(), {
      partition: 0,
      fetched: {
        records: new Counter({ name: 'records', help: 'records', registers: [] }),
        bytes: new Counter({ name: 'bytes', help: 'bytes', registers: [] }),
      },
    });
    script.join([0, 1, 2]);
    expect(script.seek).not.toHaveBeenCalled();

    await script.batch(0, ['41', '42']);
    await script.batch(2, ['43']);
    // The ends of the first join are fetched in the background.
    await new Promise((resolve) => setImmediate(resolve));
    script.join([0, 1, 2]);

    expect(script.seek.mock.calls).toEqual([
      [{ topic: 'replies', partition: 0, offset: '43' }],
      [{ topic: 'replies', partition: 1, offset: '40' }],
      [{ topic: 'replies', partition: 2, offset: '44' }],
    ]);
  });
});
