import type { EachBatchPayload } from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type PartitionLanes } from '#writer/lanes/partition-lanes.ts';
import { FAR_STORE_WAIT_MS } from '#writer/store/store-distance.ts';
import {
  batchAt,
  controllableLanes,
  acceptAll,
  settle,
} from '#test/support/clients/lane-batches.ts';

describe('Partition lanes', () => {
  afterEach(() => {
    vi.useRealTimers();
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

    it('When the store is far, then the next commands are taken beside the work in hand once it has taken 5 ms (FAR_STORE_WAIT_MS), not 100', async () => {
      const { lanes, offsets } = controllableLanes(0, { far: true });
      await handOver(lanes, [batchAt(0, ['1']), batchAt(0, ['2'])]);

      await slowFor(FAR_STORE_WAIT_MS - 1);
      expect(offsets()).toEqual(['0:1']);
      await slowFor(1);
      expect(offsets()).toEqual(['0:1', '0:2']);
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
