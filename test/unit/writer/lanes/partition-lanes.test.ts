import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  batchAt,
  controllableLanes,
  acceptAll,
  settle,
  linger,
  fetchingBroker,
  offsetsFrom,
} from '#test/support/clients/lane-batches.ts';

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

  it('When a batch is answered before its fetch hold ends, then kafkajs may fetch again at once and no timer of the hold is left to wake the writer', async () => {
    const { lanes, finish } = controllableLanes();
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout');
    const before = timers().length;

    const held = lanes.accept(batchAt(0, ['1']).payload);
    await settle();
    expect(timers()).toHaveLength(before + 1);
    finish[0]?.();
    await held;

    expect(timers()).toHaveLength(before);
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
    const [busy, backlog, large] = [
      batchAt(0, ['0']),
      batchAt(0, offsetsFrom(1, 1_100)),
      batchAt(0, offsetsFrom(1_101, 3), 200 << 10),
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
    expect(started.flatMap(({ offsets }) => offsets)).toEqual(['0', ...offsetsFrom(1, 1_103)]);
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

  it('When commands arrive 1 ms apart, then once the rate is known kafkajs fetches again only after a linger, so each fetch brings several; a lone command after a pause is answered at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    const { lanes, finish, started } = controllableLanes(8);
    const broker = fetchingBroker(lanes);
    onTestFinished(() => {
      broker.stop();
    });
    const answerStarted = () => {
      for (const answer of finish.splice(0)) answer();
    };

    for (let offset = 1; offset <= 300; offset++) {
      broker.append(String(offset));
      await vi.advanceTimersByTimeAsync(1);
      answerStarted();
    }
    for (let pause = 0; pause < 1_000; pause++) {
      await vi.advanceTimersByTimeAsync(1);
      answerStarted();
    }
    const fetchesOnceRateKnown = broker.fetches.filter(([first]) => Number(first) > 100);
    broker.append('301');
    await settle();
    await settle();

    expect(started.flatMap(({ offsets }) => offsets)).toEqual(offsetsFrom(1, 301));
    expect(broker.fetches.at(-1)).toEqual(['301']);
    expect(fetchesOnceRateKnown.length).toBeLessThan(50);
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
});
