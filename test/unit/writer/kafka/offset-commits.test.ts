import type { EachBatchPayload } from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { offsetCommits, type Answered } from '#writer/kafka/offset-commits.ts';

const INTERVAL_MS = 100;

function aPayload(commit: () => Promise<void> = () => Promise.resolve()) {
  const commitOffsetsIfNecessary = vi.fn(commit);
  return {
    payload: { commitOffsetsIfNecessary } as unknown as EachBatchPayload,
    commitOffsetsIfNecessary,
  };
}

function answered(
  partition: number,
  offset: string,
  payload: EachBatchPayload,
  current = () => true,
  topic = 'plants.create',
): Answered {
  return { topic, partition, offset, payload, current };
}

describe('Offset commits', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('When batches of several partitions are answered within the interval, then one request commits each partition at its newest offset, through the newest payload', async () => {
    const failed = vi.fn();
    const commits = offsetCommits(INTERVAL_MS, failed);
    const [older, newer] = [aPayload(), aPayload()];

    commits.answered(answered(0, '5', older.payload));
    commits.answered(answered(1, '9', older.payload));
    commits.answered(answered(0, '8', older.payload));
    commits.answered(answered(2, '3', newer.payload, () => true, 'other.create'));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS - 1);
    expect(newer.commitOffsetsIfNecessary).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);

    expect(older.commitOffsetsIfNecessary).not.toHaveBeenCalled();
    expect(newer.commitOffsetsIfNecessary).toHaveBeenCalledExactlyOnceWith({
      topics: [
        {
          topic: 'plants.create',
          partitions: [
            { partition: 0, offset: '8' },
            { partition: 1, offset: '9' },
          ],
        },
        { topic: 'other.create', partitions: [{ partition: 2, offset: '3' }] },
      ],
    });
    expect(failed).not.toHaveBeenCalled();
  });

  it('When what was answered is committed, then nothing more is committed, timed or flushed', async () => {
    const commits = offsetCommits(INTERVAL_MS, vi.fn());
    const { payload, commitOffsetsIfNecessary } = aPayload();
    commits.answered(answered(0, '1', payload));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);

    await commits.flush();
    await vi.advanceTimersByTimeAsync(10 * INTERVAL_MS);

    expect(commitOffsetsIfNecessary).toHaveBeenCalledOnce();
  });

  it('When flushed, then what is answered is committed at once, and the flush waits for it', async () => {
    let committed = false;
    const { payload } = aPayload(async () => {
      await Promise.resolve();
      committed = true;
    });
    const commits = offsetCommits(INTERVAL_MS, vi.fn());
    commits.answered(answered(0, '4', payload));

    await commits.flush();

    expect(committed).toBe(true);
  });

  it('When a partition was given away before its commit went, then it is left to its next owner', async () => {
    const commits = offsetCommits(INTERVAL_MS, vi.fn());
    const { payload, commitOffsetsIfNecessary } = aPayload();
    let owned = true;
    commits.answered(answered(0, '4', payload, () => owned));
    commits.answered(answered(1, '7', payload));

    owned = false;
    await commits.flush();

    expect(commitOffsetsIfNecessary).toHaveBeenCalledExactlyOnceWith({
      topics: [{ topic: 'plants.create', partitions: [{ partition: 1, offset: '7' }] }],
    });
  });

  it('When a commit fails, then it is reported with its offsets, and a newer offset of the partition replaces them', async () => {
    const failed = vi.fn();
    const commits = offsetCommits(INTERVAL_MS, failed);
    const refused = new Error('The group is rebalancing');
    const failing = aPayload(() => Promise.reject(refused));
    const next = aPayload();

    commits.answered(answered(0, '4', failing.payload));
    await commits.flush();
    commits.answered(answered(0, '6', next.payload));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);

    expect(failed).toHaveBeenCalledExactlyOnceWith(refused, [
      expect.objectContaining({ partition: 0, offset: '4' }),
    ]);
    expect(next.commitOffsetsIfNecessary).toHaveBeenCalledExactlyOnceWith({
      topics: [{ topic: 'plants.create', partitions: [{ partition: 0, offset: '6' }] }],
    });
  });

  it('When a commit fails, then the offsets not answered further go out again with the next, through the newest payload', async () => {
    const failed = vi.fn();
    const commits = offsetCommits(INTERVAL_MS, failed);
    const failing = aPayload(() => Promise.reject(new Error('The coordinator is loading')));
    const next = aPayload();

    commits.answered(answered(0, '4', failing.payload));
    commits.answered(answered(1, '9', failing.payload));
    await commits.flush();
    commits.answered(answered(0, '6', next.payload));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);

    expect(next.commitOffsetsIfNecessary).toHaveBeenCalledExactlyOnceWith({
      topics: [
        {
          topic: 'plants.create',
          partitions: [
            { partition: 0, offset: '6' },
            { partition: 1, offset: '9' },
          ],
        },
      ],
    });
  });

  it('When closed, then what is answered is committed once, and a failure is not tried again', async () => {
    const failing = aPayload(() => Promise.reject(new Error('The consumer is disconnected')));
    const commits = offsetCommits(INTERVAL_MS, vi.fn());
    commits.answered(answered(0, '4', failing.payload));

    await commits.close();
    commits.answered(answered(0, '5', failing.payload));
    await vi.advanceTimersByTimeAsync(10 * INTERVAL_MS);

    expect(failing.commitOffsetsIfNecessary).toHaveBeenCalledOnce();
  });

  it('When a commit is in flight, then the next waits for it, so that offsets go out in order', async () => {
    const order: string[] = [];
    let release: () => void = () => {
      throw new Error('the first commit was not sent');
    };
    const slow = aPayload(
      () =>
        new Promise<void>((resolve) => {
          release = () => {
            order.push('first done');
            resolve();
          };
        }),
    );
    const fast = aPayload(() => {
      order.push('second sent');
      return Promise.resolve();
    });
    const commits = offsetCommits(INTERVAL_MS, vi.fn());

    commits.answered(answered(0, '4', slow.payload));
    const first = commits.flush();
    await vi.advanceTimersByTimeAsync(0);
    commits.answered(answered(0, '9', fast.payload));
    const second = commits.flush();
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual([]);
    release();
    await Promise.all([first, second]);

    expect(order).toEqual(['first done', 'second sent']);
  });
});
