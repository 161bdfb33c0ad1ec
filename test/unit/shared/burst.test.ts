import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { burst } from '#shared/burst.ts';

const QUIET_MS = 200;

function watchedBurst() {
  const started = vi.fn<(details: string) => void>();
  const ended = vi.fn<(summary: { events: number; lastedMs: number }) => void>();
  return { events: burst<string>({ quietMs: QUIET_MS, started, ended }), started, ended };
}

describe('A burst of events', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('When events come within the quiet time of each other, then only the first is told, with its details', () => {
    const { events, started, ended } = watchedBurst();

    events.note('first');
    vi.advanceTimersByTime(QUIET_MS - 1);
    events.note('second');
    vi.advanceTimersByTime(QUIET_MS - 1);
    events.note('third');

    expect(started.mock.calls).toEqual([['first']]);
    expect(ended).not.toHaveBeenCalled();
    expect(events.active).toBe(true);
  });

  it('When no event has come yet, then the burst is not active', () => {
    const { events, started } = watchedBurst();

    vi.advanceTimersByTime(QUIET_MS * 10);

    expect(events.active).toBe(false);
    expect(started).not.toHaveBeenCalled();
  });

  it('When the quiet time passes after the last event, then the burst is over, told once with how many events there were and how long it lasted', () => {
    const { events, ended } = watchedBurst();
    events.note('first');
    vi.advanceTimersByTime(150);
    events.note('second');
    vi.advanceTimersByTime(150);
    events.note('third');

    vi.advanceTimersByTime(QUIET_MS - 1);
    expect(events.active).toBe(true);
    expect(ended).not.toHaveBeenCalled();

    vi.advanceTimersByTime(1);
    expect(events.active).toBe(false);
    // From the first event to the end: 150 + 150 between the events, then the quiet time.
    expect(ended.mock.calls).toEqual([[{ events: 3, lastedMs: 150 + 150 }]]);

    vi.advanceTimersByTime(QUIET_MS * 10);
    expect(ended).toHaveBeenCalledTimes(1);
  });

  it('When an event comes after a burst has ended, then a new burst starts, told with its details, and its end counts only its own events', () => {
    const { events, started, ended } = watchedBurst();
    events.note('first');
    events.note('second');
    vi.advanceTimersByTime(QUIET_MS);

    vi.advanceTimersByTime(1_000);
    events.note('again');

    expect(events.active).toBe(true);
    expect(started.mock.calls).toEqual([['first'], ['again']]);
    vi.advanceTimersByTime(QUIET_MS);
    expect(ended.mock.calls).toEqual([[{ events: 2, lastedMs: 0 }], [{ events: 1, lastedMs: 0 }]]);
  });

  it('When a burst is stopped, then it is over at once and its end is never told', () => {
    const { events, ended } = watchedBurst();
    events.note('first');
    events.note('second');

    events.stop();

    expect(events.active).toBe(false);
    vi.advanceTimersByTime(QUIET_MS * 10);
    expect(ended).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('When a burst that was never started is stopped, then nothing is told', () => {
    const { events, started, ended } = watchedBurst();

    events.stop();

    expect(events.active).toBe(false);
    expect(started).not.toHaveBeenCalled();
    expect(ended).not.toHaveBeenCalled();
  });

  it('When an event comes after a stop, then a new burst starts and is told', () => {
    const { events, started } = watchedBurst();
    events.note('before the stop');
    events.stop();

    events.note('after the stop');

    expect(events.active).toBe(true);
    expect(started.mock.calls).toEqual([['before the stop'], ['after the stop']]);
  });

  it('When a burst after a stop ends, then its end counts only its own events', () => {
    const { events, ended } = watchedBurst();
    events.note('before the stop');
    events.note('before the stop');
    events.stop();

    events.note('after the stop');
    vi.advanceTimersByTime(QUIET_MS);

    expect(ended.mock.calls).toEqual([[{ events: 1, lastedMs: 0 }]]);
  });
});
