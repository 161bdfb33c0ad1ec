import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '#shared/logger.ts';
import type { LaneWork } from '#writer/consuming/lane-state.ts';
import { partitionLanes, type PartitionLanes } from '#writer/consuming/partition-lanes.ts';

/**
 * A batch of commands at `offsets` on `partition`, as kafkajs hands it to eachBatch; each
 * command's lane key is its offset unless `keys` says otherwise.
 */
function batchAt(partition: number, offsets: string[], valueBytes = 16, keys = offsets) {
  const resume = vi.fn();
  const payload = {
    batch: {
      topic: 'plants.create',
      partition,
      messages: offsets.map(
        (offset, index) =>
          ({
            offset,
            key: Buffer.from(keys[index] ?? offset),
            value: Buffer.alloc(valueBytes),
          }) as unknown as KafkaMessage,
      ),
    },
    isRunning: () => true,
    isStale: vi.fn(() => false),
    resolveOffset: vi.fn(),
    pause: vi.fn(() => resume),
  };
  return { payload: payload as unknown as EachBatchPayload, ...payload, resume };
}

const offsetsOf = ({ partition, messages }: LaneWork) =>
  `${partition}:${messages.map(({ offset }) => offset).join(',')}`;

/**
 * Lanes whose work finishes when the test says so; `offsets` lists each work's commands as it
 * starts, `answered` as it is handed on in order.
 */
function controllableLanes() {
  const started: { partition: number; offsets: string[]; work: LaneWork }[] = [];
  const finish: ((error?: Error) => void)[] = [];
  const answered: string[] = [];
  const seek = vi.fn();
  const lanes = partitionLanes(
    { seek },
    {
      answer: (work) =>
        new Promise<void>((resolve, reject) => {
          started.push({
            partition: work.partition,
            offsets: work.messages.map(({ offset }) => offset),
            work,
          });
          finish.push((error) => {
            if (error) reject(error);
            else resolve();
          });
        }),
      answered: (work) => answered.push(offsetsOf(work)),
      keyOf: ({ key }) => key?.toString(),
    },
    createLogger('writer', 'silent'),
  );
  const offsets = () => started.map(({ work }) => offsetsOf(work));
  return { lanes, started, finish, seek, offsets, answered };
}

/** Hands every batch over at once, as one fetch does: within the time a lane works alone. */
const acceptAll = (lanes: PartitionLanes, batches: { payload: EachBatchPayload }[]) =>
  Promise.all(batches.map(({ payload }) => lanes.accept(payload)));

const settle = () => new Promise((resolve) => setImmediate(resolve));
/** Longer than a lane under load waits before it takes more. */
const linger = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('Partition lanes', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('When one partition is busy, then another is answered meanwhile, and what queued behind the busy one is taken together once it is free', async () => {
    const { lanes, finish, offsets, started } = controllableLanes();
    const [busy, second, third, other] = [
      batchAt(0, ['1']),
      batchAt(0, ['2']),
      batchAt(0, ['3', '4']),
      batchAt(1, ['7']),
    ];

    await acceptAll(lanes, [busy, second, third, other]);
    await settle();

    expect(offsets()).toEqual(['0:1', '1:7']);
    expect(third.resolveOffset).toHaveBeenCalledWith('4');
    finish[0]?.();
    await settle();
    expect(offsets()).toEqual(['0:1', '1:7', '0:2,3,4']);
    expect(started[2]?.work.payload).toBe(third.payload);
  });

  it('When more than 16 MiB of commands queue over every lane, then the partition that adds to them is paused until its lane has taken them', async () => {
    const { lanes, finish } = controllableLanes();
    const [busy, otherBusy, queued, beyond] = [
      batchAt(0, ['1']),
      batchAt(1, ['1']),
      batchAt(0, ['2'], 9 << 20),
      batchAt(1, ['2'], 9 << 20),
    ];

    await acceptAll(lanes, [busy, otherBusy, queued, beyond]);

    expect([queued.pause, beyond.pause].map(({ mock }) => mock.calls.length)).toEqual([0, 1]);
    expect(beyond.resume).not.toHaveBeenCalled();
    finish[1]?.();
    await settle();
    expect(beyond.resume).toHaveBeenCalledOnce();
  });

  it('When small commands queue, then each counts as the heap its message takes, not its bytes alone', async () => {
    const { lanes } = controllableLanes();
    const offsets = (from: number) => Array.from({ length: 8_000 }, (_, i) => String(from + i));
    const [busy, queued, beyond] = [
      batchAt(0, ['0']),
      batchAt(0, offsets(1), 40),
      batchAt(0, offsets(8_001), 40),
    ];

    await acceptAll(lanes, [busy, queued, beyond]);

    expect([queued.pause, beyond.pause].map(({ mock }) => mock.calls.length)).toEqual([0, 1]);
  });

  it('When a backlog queued behind a busy lane, then it is taken 500 commands or 512 KiB at a time, in order, each committed through the batch it ends in', async () => {
    const { lanes, finish, started } = controllableLanes();
    const range = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => String(from + i));
    const [busy, backlog, large] = [
      batchAt(0, ['0']),
      batchAt(0, range(1, 1_100)),
      batchAt(0, range(1_101, 3), 200 << 10),
    ];
    await acceptAll(lanes, [busy, backlog, large]);

    for (let taken = 0; taken < 5; taken++) {
      finish[taken]?.();
      await linger();
    }

    expect(started.map(({ work }) => work.messages.length)).toEqual([1, 500, 500, 102, 1]);
    expect(started.map(({ work }) => work.payload)).toEqual(
      [busy, backlog, backlog, large, large].map(({ payload }) => payload),
    );
    expect(started.flatMap(({ offsets }) => offsets)).toEqual(['0', ...range(1, 1_103)]);
  });

  it('When a lane answered more than one command, then it waits a moment before it takes more, so that more queue; after a lone command it takes the next at once', async () => {
    const { lanes, finish, offsets } = controllableLanes();
    await acceptAll(lanes, [batchAt(0, ['1']), batchAt(0, ['2', '3']), batchAt(0, ['4'])]);

    finish[0]?.();
    await settle();
    expect(offsets()).toEqual(['0:1', '0:2,3,4']);
    await lanes.accept(batchAt(0, ['5']).payload);
    finish[1]?.();
    await settle();
    expect(offsets()).toEqual(['0:1', '0:2,3,4']);
    await linger();
    expect(offsets()).toEqual(['0:1', '0:2,3,4', '0:5']);
  });

  it('When work fails, then what is queued behind it is dropped, and its partition is sought back to its first command and paused for a while', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const { lanes, finish, seek, offsets } = controllableLanes();
    const [failing, queued, fetchedBeforeSeek, again] = [
      batchAt(0, ['5', '6']),
      batchAt(0, ['7']),
      batchAt(0, ['8']),
      batchAt(0, ['5', '6', '7', '8']),
    ];

    await acceptAll(lanes, [failing, queued]);
    finish[0]?.(new Error('unexpected'));
    await settle();

    expect(seek).toHaveBeenCalledExactlyOnceWith({
      topic: 'plants.create',
      partition: 0,
      offset: '5',
    });
    expect(failing.pause).toHaveBeenCalledOnce();
    fetchedBeforeSeek.isStale.mockReturnValue(true);
    await lanes.accept(fetchedBeforeSeek.payload);
    await vi.runOnlyPendingTimersAsync();
    expect(failing.resume).toHaveBeenCalledOnce();
    await lanes.accept(again.payload);
    await settle();

    expect(offsets()).toEqual(['0:5,6', '0:5,6,7,8']);
    expect(fetchedBeforeSeek.resolveOffset).not.toHaveBeenCalled();
  });

  it('When a busy partition is given away and back, then it is not fetched past what was dropped from its lane', async () => {
    const { lanes, finish, seek, offsets, started } = controllableLanes();
    const [inHand, dropped, fetchedAgain] = [
      batchAt(0, ['1']),
      batchAt(0, ['2']),
      batchAt(0, ['1', '2']),
    ];
    await acceptAll(lanes, [inHand, dropped]);

    lanes.assigned({ 'plants.create': [] });
    lanes.assigned({ 'plants.create': [0] });
    await lanes.accept(fetchedAgain.payload);
    finish[0]?.();
    await settle();

    expect(seek).not.toHaveBeenCalled();
    expect(started[0]?.work.givenAway.aborted === false).toBe(false);
    expect(offsets()).toEqual(['0:1', '0:1,2']);
  });

  it('When a rebalance gives a partition away, then what queued for it is dropped and its work in hand is not to be committed; a partition kept is fetched past what its lane holds', async () => {
    const { lanes, finish, seek, offsets, started } = controllableLanes();
    const [givenAway, queued, kept, keptQueued] = [
      batchAt(0, ['1']),
      batchAt(0, ['2']),
      batchAt(1, ['10']),
      batchAt(1, ['11', '12']),
    ];
    await acceptAll(lanes, [givenAway, queued, kept, keptQueued]);

    lanes.assigned({ 'plants.create': [1] });

    expect(seek).toHaveBeenCalledExactlyOnceWith({
      topic: 'plants.create',
      partition: 1,
      offset: '13',
    });
    const [inHandGivenAway, inHandKept] = started;
    expect(inHandGivenAway?.work.givenAway.aborted === false).toBe(false);
    expect(inHandKept?.work.givenAway.aborted === false).toBe(true);
    finish[0]?.();
    finish[1]?.();
    await settle();
    expect(offsets()).toEqual(['0:1', '1:10', '1:11,12']);
  });

  it('When a partition is given away after its lane went idle, then the work it last answered is not to be committed', async () => {
    const { lanes, finish, started } = controllableLanes();
    await lanes.accept(batchAt(0, ['1']).payload);
    finish[0]?.();
    await settle();

    lanes.assigned({ 'plants.create': [1] });

    expect(started[0]?.work.givenAway.aborted === false).toBe(false);
  });

  it('When work fails, then the work its lane answered before is still to be committed', async () => {
    const { lanes, finish, started } = controllableLanes();
    await acceptAll(lanes, [batchAt(0, ['1']), batchAt(0, ['2'])]);
    finish[0]?.();
    await settle();

    finish[1]?.(new Error('the store refused the insert'));
    await settle();

    expect(started[0]?.work.givenAway.aborted === false).toBe(true);
  });

  it('When a batch of a partition given away arrives after the rebalance, then it is not taken', async () => {
    const { lanes, offsets } = controllableLanes();
    const late = batchAt(0, ['4']);

    lanes.assigned({ 'plants.create': [1] });
    await lanes.accept(late.payload);
    await lanes.accept(batchAt(1, ['9']).payload);

    expect(late.resolveOffset).not.toHaveBeenCalled();
    expect(offsets()).toEqual(['1:9']);
  });

  it('When stopped, then the work in hand finishes and may be committed, what queued behind it is dropped, and no more is taken', async () => {
    const { lanes, finish, offsets, started } = controllableLanes();
    const [inHand, behind, afterStop] = [batchAt(0, ['1']), batchAt(0, ['2']), batchAt(1, ['3'])];
    await acceptAll(lanes, [inHand, behind]);

    const stopped = lanes.stop();
    await lanes.accept(afterStop.payload);
    expect(started[0]?.work.stopping.aborted).toBe(true);
    finish[0]?.();
    await stopped;

    expect(offsets()).toEqual(['0:1']);
    expect(started[0]?.work.givenAway.aborted === false).toBe(true);
    expect(afterStop.resolveOffset).not.toHaveBeenCalled();
  });

  describe('when work is slow', () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    });
    const slowFor = async (ms: number) => {
      vi.advanceTimersByTime(ms);
      await settle();
    };
    /**
     * Hands the batches over without waiting out the fetch hold of a busy lane: that hold is
     * 25 ms of the real clock (node:timers/promises), which the fake one does not move.
     */
    const handOver = (lanes: PartitionLanes, batches: { payload: EachBatchPayload }[]) => {
      void acceptAll(lanes, batches);
      return settle();
    };

    it('When the work in hand has taken 100 ms, then the next commands are taken beside it, not before', async () => {
      const { lanes, offsets } = controllableLanes();
      await handOver(lanes, [batchAt(0, ['1']), batchAt(0, ['2'])]);

      await slowFor(99);
      expect(offsets()).toEqual(['0:1']);
      await slowFor(1);
      expect(offsets()).toEqual(['0:1', '0:2']);
      await handOver(lanes, [batchAt(0, ['3'])]);
      await slowFor(99);
      expect(offsets()).toEqual(['0:1', '0:2']);
      await slowFor(1);
      expect(offsets()).toEqual(['0:1', '0:2', '0:3']);
    });

    it('When commands share a key with work in hand, then they wait for it, while the commands after them that do not are taken beside it', async () => {
      const { lanes, finish, offsets } = controllableLanes();
      await handOver(lanes, [batchAt(0, ['1', '2'], 16, ['a', 'b'])]);
      await handOver(lanes, [batchAt(0, ['3'], 16, ['b'])]);
      await slowFor(100);
      await handOver(lanes, [batchAt(0, ['4'], 16, ['c'])]);
      await slowFor(100);

      expect(offsets()).toEqual(['0:1,2', '0:4']);
      finish[0]?.();
      await settle();
      expect(offsets()).toEqual(['0:1,2', '0:4', '0:3']);
    });

    it('When later work is answered first, then it is handed on for its commit only once the work before it is', async () => {
      const { lanes, finish, answered } = controllableLanes();
      await handOver(lanes, [batchAt(0, ['1']), batchAt(0, ['2'])]);
      await slowFor(100);
      await handOver(lanes, [batchAt(0, ['3'])]);
      await slowFor(100);

      finish[2]?.();
      finish[1]?.();
      await settle();
      expect(answered).toEqual([]);
      finish[0]?.();
      await settle();
      expect(answered).toEqual(['0:1', '0:2', '0:3']);
    });

    it('When work fails while later work is in hand, then the lane takes no more until all of it settled, hands on none answered after the failure, and reads again from the failed work', async () => {
      const { lanes, finish, offsets, answered, seek } = controllableLanes();
      await handOver(lanes, [batchAt(0, ['1']), batchAt(0, ['2'])]);
      await slowFor(100);
      await handOver(lanes, [batchAt(0, ['3']), batchAt(0, ['4'])]);
      await slowFor(100);
      expect(offsets()).toEqual(['0:1', '0:2', '0:3,4']);

      finish[1]?.(new Error('the store refused the insert'));
      await handOver(lanes, [batchAt(0, ['5'])]);
      await slowFor(500);
      expect(offsets()).toEqual(['0:1', '0:2', '0:3,4']);
      expect(seek).not.toHaveBeenCalled();
      finish[2]?.();
      finish[0]?.();
      await settle();

      expect(answered).toEqual(['0:1']);
      expect(seek).toHaveBeenCalledExactlyOnceWith({
        topic: 'plants.create',
        partition: 0,
        offset: '2',
      });
    });

    it('When the work a command waits for fails, then it fails too, unanswered, and the lane reads again from the first that failed', async () => {
      const { lanes, finish, offsets, answered, seek } = controllableLanes();
      await handOver(lanes, [batchAt(0, ['1'], 16, ['a'])]);
      await handOver(lanes, [batchAt(0, ['2'], 16, ['a'])]);
      await slowFor(100);

      finish[0]?.(new Error('the store refused the insert'));
      await settle();

      expect(offsets()).toEqual(['0:1']);
      expect(answered).toEqual([]);
      expect(seek).toHaveBeenCalledExactlyOnceWith({
        topic: 'plants.create',
        partition: 0,
        offset: '1',
      });
    });

    it('When 16 works are answering, then the lane takes no more until one is answered; when 64 are in hand, until the oldest is', async () => {
      const { lanes, finish, offsets } = controllableLanes();
      let next = 0;
      const acceptSlowly = async (count: number) => {
        for (let each = 0; each < count; each++) {
          await handOver(lanes, [batchAt(0, [String(next++)])]);
          await slowFor(100);
        }
      };
      await acceptSlowly(17);
      expect(offsets()).toHaveLength(16);
      finish[1]?.();
      await slowFor(100);
      expect(offsets()).toHaveLength(17);

      for (let index = 2; index < 64; index++) {
        finish[index]?.();
        await acceptSlowly(1);
      }
      expect(offsets()).toHaveLength(64);
      finish[63]?.();
      await acceptSlowly(1);
      expect(offsets()).toHaveLength(64);
      finish[0]?.();
      await settle();
      expect(offsets()).toHaveLength(65);
    });
  });
});
