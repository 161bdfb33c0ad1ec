import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../shared/logger.ts';
import { runCommandConsumer } from '../../services/writer/src/command-consumer.ts';
import { writerMetrics } from '../../services/writer/src/metrics.ts';
import type { PlantStore } from '../../services/writer/src/plant-store.ts';

// kafkajs 2.2.4: consumer.commitOffsets() returns without committing once the consumer is
// stopping (runner.commitOffsets checks `running`); the batch payload's
// commitOffsetsIfNecessary(offsets) commits regardless. A writer stopped by SIGTERM in the middle
// of a batch must still commit it after answering, or the next writer answers it again.
describe('Writer commit of the batch in hand while stopping', () => {
  it('When the consumer is stopping as a batch is answered, then the batch is committed through its payload', async () => {
    let eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
    const consumer = {
      subscribe: vi.fn(() => Promise.resolve()),
      run: vi.fn((config: { eachBatch: (payload: EachBatchPayload) => Promise<void> }) => {
        eachBatch = config.eachBatch;
        return Promise.resolve();
      }),
      commitOffsets: vi.fn(() => Promise.resolve()),
      seek: vi.fn(),
      on: vi.fn(),
      events: { GROUP_JOIN: 'consumer.group_join' },
    };
    const sender = { send: vi.fn(() => Promise.resolve([])), disconnect: vi.fn() };
    const store: PlantStore = {
      insertNew: () => Promise.resolve(new Set()),
      findByIdAndName: () => Promise.resolve(new Map()),
    };
    await runCommandConsumer({
      consumer: consumer as unknown as Consumer,
      sender,
      store,
      topics: { create: 'plants.create', dlq: 'plants.create.dlq' },
      logger: createLogger('writer', 'silent'),
      metrics: writerMetrics(
        () => Promise.resolve([]),
        () => true,
      ),
    });

    let running = true;
    const commitOffsetsIfNecessary = vi.fn(() => Promise.resolve());
    const message = (offset: string): KafkaMessage =>
      ({
        offset,
        key: Buffer.from(offset),
        value: Buffer.from(`{"id": ${offset}, "name": "Fern"}`),
        headers: { kafka_replyTopic: Buffer.from('plants.create.replies') },
      }) as unknown as KafkaMessage;
    const payload = {
      batch: { topic: 'plants.create', partition: 2, messages: [message('4'), message('5')] },
      isRunning: () => running,
      isStale: () => false,
      resolveOffset: vi.fn(),
      commitOffsetsIfNecessary,
    } as unknown as EachBatchPayload;
    sender.send.mockImplementation(() => {
      running = false;
      return Promise.resolve([]);
    });

    await eachBatch?.(payload);

    await vi.waitFor(() => {
      expect(commitOffsetsIfNecessary).toHaveBeenCalledWith({
        topics: [{ topic: 'plants.create', partitions: [{ partition: 2, offset: '6' }] }],
      });
    });
    expect(sender.send).toHaveBeenCalled();
    expect(consumer.commitOffsets).not.toHaveBeenCalled();
  });
});
