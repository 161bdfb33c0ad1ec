import type { Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { runCommandConsumer } from '#writer/kafka/command-consumer.ts';
import { quietAnswering } from '#test/support/clients/answering.ts';
import type { PlantStore } from '#writer/store/plant-store.ts';
import { NEAR_STORE } from '#writer/store/store-distance.ts';

const EVENTS = { GROUP_JOIN: 'consumer.group_join', REBALANCING: 'consumer.rebalancing' };
const COMMITTED = {
  topics: [{ topic: 'plants.create', partitions: [{ partition: 2, offset: '6' }] }],
};

/** A command consumer on a fake kafkajs consumer, and a batch of two commands to hand it. */
async function consumerWithBatch() {
  let eachBatch: ((payload: EachBatchPayload) => Promise<void>) | undefined;
  const registered = new Map<string, ((event?: unknown) => void)[]>();
  const listeners = {
    get: (event: string) => (payload?: unknown) => {
      for (const listener of registered.get(event) ?? []) listener(payload);
    },
  };
  const consumer = {
    subscribe: vi.fn(() => Promise.resolve()),
    run: vi.fn((config: { eachBatch: (payload: EachBatchPayload) => Promise<void> }) => {
      eachBatch = config.eachBatch;
      return Promise.resolve();
    }),
    commitOffsets: vi.fn(() => Promise.resolve()),
    seek: vi.fn(),
    on: vi.fn((event: string, listener: (event?: unknown) => void) => {
      registered.set(event, [...(registered.get(event) ?? []), listener]);
    }),
    events: EVENTS,
  };
  const sender = { send: vi.fn(() => Promise.resolve(new Map())), disconnect: vi.fn() };
  const store: PlantStore = {
    insertNew: () => Promise.resolve(new Set()),
    findByIdAndName: () => Promise.resolve(new Map()),
  };
  const commands = await runCommandConsumer({
    consumer: consumer as unknown as Consumer,
    sender,
    store,
    ...quietAnswering(),
    lingerMaxMs: 0,
    storeDistance: NEAR_STORE,
  });
  const state = { running: true };
  const commitOffsetsIfNecessary = vi.fn(() => Promise.resolve());
  const message = (offset: string): KafkaMessage =>
    ({
      offset,
      timestamp: String(Date.now()),
      key: Buffer.from(offset),
      value: Buffer.from(`{"id": ${offset}, "name": "Fern"}`),
      headers: { kafka_replyTopic: Buffer.from('plants.create.replies') },
    }) as unknown as KafkaMessage;
  const payload = {
    batch: { topic: 'plants.create', partition: 2, messages: [message('4'), message('5')] },
    isRunning: () => state.running,
    isStale: () => false,
    resolveOffset: vi.fn(),
    pause: vi.fn(() => vi.fn()),
    commitOffsetsIfNecessary,
  } as unknown as EachBatchPayload;
  return {
    consumer,
    commands,
    sender,
    state,
    commitOffsetsIfNecessary,
    listeners,
    handOver: () => eachBatch?.(payload),
  };
}

// kafkajs 2.2.4: consumer.commitOffsets() returns without committing once the consumer is
// stopping (runner.commitOffsets checks `running`); the batch payload's
// commitOffsetsIfNecessary(offsets) commits regardless. A writer stopped by SIGTERM in the middle
// of a batch must still commit it after answering, or the next writer answers it again.
describe('Writer commit of the batch in hand', () => {
  it('When the consumer is stopping as a batch is answered, then the batch is committed through its payload', async () => {
    const { consumer, sender, state, commitOffsetsIfNecessary, handOver } =
      await consumerWithBatch();
    sender.send.mockImplementation(() => {
      state.running = false;
      return Promise.resolve(new Map());
    });

    await handOver();

    await vi.waitFor(() => {
      expect(commitOffsetsIfNecessary).toHaveBeenCalledWith(COMMITTED);
    });
    expect(sender.send).toHaveBeenCalled();
    expect(consumer.commitOffsets).not.toHaveBeenCalled();
  });

  it('When the writer stops just after answering a batch, then its commit is sent before the stop resolves, not at the next interval', async () => {
    const { commands, sender, commitOffsetsIfNecessary, handOver } = await consumerWithBatch();
    await handOver();
    await vi.waitFor(() => {
      expect(sender.send).toHaveBeenCalled();
    });

    await commands.stop();

    expect(commitOffsetsIfNecessary).toHaveBeenCalledExactlyOnceWith(COMMITTED);
  });

  it('When a rebalance starts, then what was answered is committed at once', async () => {
    // The commit interval's timer is held, so only the rebalance can commit, however slow the
    // machine: a wait of less than the interval would make the outcome a matter of pace.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { sender, commitOffsetsIfNecessary, listeners, handOver } = await consumerWithBatch();
    const sent = new Promise<void>((resolve) => {
      sender.send.mockImplementation(() => {
        resolve();
        return Promise.resolve(new Map());
      });
    });
    await handOver();
    await sent;
    await new Promise((resolve) => setImmediate(resolve));
    expect(commitOffsetsIfNecessary).not.toHaveBeenCalled();

    listeners.get(EVENTS.REBALANCING)();
    await new Promise((resolve) => setImmediate(resolve));

    expect(commitOffsetsIfNecessary).toHaveBeenCalledExactlyOnceWith(COMMITTED);
  });

  it('When a commit failed and the writer joins again as a new member with the same partition, then the old offset is not committed again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { sender, commitOffsetsIfNecessary, listeners, handOver } = await consumerWithBatch();
    const join = (memberId: string) => {
      listeners.get(EVENTS.GROUP_JOIN)({
        payload: { memberId, memberAssignment: { 'plants.create': [2] } },
      });
    };
    join('writer-1');
    const sent = new Promise<void>((resolve) => {
      sender.send.mockImplementation(() => {
        resolve();
        return Promise.resolve(new Map());
      });
    });
    commitOffsetsIfNecessary.mockRejectedValueOnce(
      new Error('The coordinator is not aware of this member'),
    );
    await handOver();
    await sent;
    await new Promise((resolve) => setImmediate(resolve));
    listeners.get(EVENTS.REBALANCING)();
    await vi.waitFor(() => {
      expect(commitOffsetsIfNecessary).toHaveBeenCalledTimes(1);
    });

    // Its session expired while it was frozen; another writer owned partition 2 meanwhile.
    join('writer-1-again');
    listeners.get(EVENTS.REBALANCING)();
    await new Promise((resolve) => setImmediate(resolve));
    await vi.advanceTimersByTimeAsync(1_000);

    expect(commitOffsetsIfNecessary).toHaveBeenCalledTimes(1);
  });
});
