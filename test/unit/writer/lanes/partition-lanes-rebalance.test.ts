import { afterEach, describe, expect, it, vi } from 'vitest';
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
});
