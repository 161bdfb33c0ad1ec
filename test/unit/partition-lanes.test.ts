import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../shared/logger.ts';
import { partitionLanes } from '../../services/writer/src/partition-lanes.ts';

/** A batch of commands at `offsets` on `partition`, as kafkajs hands it to eachBatch. */
function batchAt(partition: number, ...offsets: string[]) {
  const resume = vi.fn();
  const payload = {
    batch: {
      topic: 'plants.create',
      partition,
      messages: offsets.map((offset) => ({ offset }) as KafkaMessage),
    },
    isRunning: () => true,
    isStale: () => false,
    resolveOffset: vi.fn(),
    pause: vi.fn(() => resume),
  };
  return { payload: payload as unknown as EachBatchPayload, ...payload, resume };
}

/** An `answer` whose calls finish when the test says so. */
function controllableAnswer() {
  const started: EachBatchPayload[] = [];
  const finish: ((error?: Error) => void)[] = [];
  const answer = (payload: EachBatchPayload) =>
    new Promise<void>((resolve, reject) => {
      started.push(payload);
      finish.push((error) => {
        if (error) reject(error);
        else resolve();
      });
    });
  return { started, finish, answer };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('Partition lanes', () => {
  it('When a batch of one partition is slow, then batches of other partitions are answered meanwhile, and its own wait in order', async () => {
    const { started, finish, answer } = controllableAnswer();
    const lanes = partitionLanes({ seek: vi.fn() }, answer, createLogger('writer', 'silent'));
    const [slow, later, other] = [batchAt(0, '1'), batchAt(0, '2'), batchAt(1, '7')];

    lanes.accept(slow.payload);
    lanes.accept(later.payload);
    lanes.accept(other.payload);
    await settle();

    expect(started).toEqual([slow.payload, other.payload]);
    expect(later.resolveOffset).toHaveBeenCalledWith('2');
    finish[0]?.();
    await settle();
    expect(started).toEqual([slow.payload, other.payload, later.payload]);
  });

  it('When a partition has two batches in its lane, then it is paused until its lane catches up', async () => {
    const { finish, answer } = controllableAnswer();
    const lanes = partitionLanes({ seek: vi.fn() }, answer, createLogger('writer', 'silent'));
    const batches = ['1', '2'].map((offset) => batchAt(0, offset));

    for (const { payload } of batches) lanes.accept(payload);
    await settle();

    expect(batches.map(({ pause }) => pause.mock.calls.length)).toEqual([0, 1]);
    expect(batches[1]?.resume).not.toHaveBeenCalled();
    finish[0]?.();
    await settle();
    expect(batches[1]?.resume).toHaveBeenCalledOnce();
  });

  it('When a batch fails, then the batches queued behind it are dropped and its partition is read again from its first command', async () => {
    const { started, finish, answer } = controllableAnswer();
    const seek = vi.fn();
    const lanes = partitionLanes({ seek }, answer, createLogger('writer', 'silent'));
    const [failing, queued, fetchedBeforeSeek, again] = [
      batchAt(0, '5', '6'),
      batchAt(0, '7'),
      batchAt(0, '8'),
      batchAt(0, '5', '6', '7', '8'),
    ];

    lanes.accept(failing.payload);
    lanes.accept(queued.payload);
    await settle();
    finish[0]?.(new Error('unexpected'));

    await vi.waitFor(() => {
      expect(seek).toHaveBeenCalledWith({ topic: 'plants.create', partition: 0, offset: '5' });
    });
    lanes.accept(fetchedBeforeSeek.payload);
    lanes.accept(again.payload);
    await settle();
    expect(started).toEqual([failing.payload, again.payload]);
    expect(fetchedBeforeSeek.resolveOffset).not.toHaveBeenCalled();
  });

  it('When a rebalance gives a partition away, then its queued batches are dropped and the one in hand is not to be committed; a partition kept is fetched past what its lane holds', async () => {
    const { started, finish, answer } = controllableAnswer();
    const seek = vi.fn();
    const lanes = partitionLanes({ seek }, answer, createLogger('writer', 'silent'));
    const [givenAway, queued, kept, keptQueued] = [
      batchAt(0, '1'),
      batchAt(0, '2'),
      batchAt(1, '10'),
      batchAt(1, '11', '12'),
    ];
    for (const { payload } of [givenAway, queued, kept, keptQueued]) lanes.accept(payload);
    await settle();

    lanes.assigned({ 'plants.create': [1] });

    expect(lanes.current(givenAway.payload)).toBe(false);
    expect(lanes.current(kept.payload)).toBe(true);
    expect(seek).toHaveBeenCalledExactlyOnceWith({
      topic: 'plants.create',
      partition: 1,
      offset: '13',
    });
    finish[0]?.();
    finish[1]?.();
    await settle();
    expect(started).toEqual([givenAway.payload, kept.payload, keptQueued.payload]);
  });

  it('When stopped, then the batch in hand finishes, the batches behind it are dropped unanswered, and no more are taken', async () => {
    const { started, finish, answer } = controllableAnswer();
    const lanes = partitionLanes({ seek: vi.fn() }, answer, createLogger('writer', 'silent'));
    const [inHand, behind, afterStop] = [batchAt(0, '1'), batchAt(0, '2'), batchAt(1, '3')];
    lanes.accept(inHand.payload);
    lanes.accept(behind.payload);
    await settle();

    const stopped = lanes.stop();
    lanes.accept(afterStop.payload);
    expect(lanes.running()).toBe(false);
    finish[0]?.();
    await stopped;

    expect(started).toEqual([inHand.payload]);
    expect(afterStop.resolveOffset).not.toHaveBeenCalled();
  });
});
