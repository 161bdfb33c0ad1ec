import { describe, expect, it } from 'vitest';
import { refusalPacer } from '#gateway/auth/refusal-pacing.ts';

/** A pacer on a clock the test sets, and the delays of refusals at the given times. */
function pacer(perSecond: number, delayMs = 1_000) {
  let now = 0;
  const paced = refusalPacer({ perSecond, delayMs }, () => now);
  return (...times: number[]) =>
    times.map((time) => {
      now = time;
      return paced.delayOfNext();
    });
}

describe('The pacing of refused tokens', () => {
  it('When refusals come within a second, then the first perSecond are answered at once and the others after the delay', () => {
    const delays = pacer(3, 750);

    expect(delays(0, 1, 2, 3, 500, 999)).toEqual([0, 0, 0, 750, 750, 750]);
  });

  it('When a second has passed since the window’s first refusal, then a new window starts with its own budget', () => {
    const delays = pacer(2);

    expect(delays(100, 200, 300, 1_099, 1_100, 1_101, 1_102)).toEqual([
      0, 0, 1_000, 1_000, 0, 0, 1_000,
    ]);
  });

  it('When refusals keep coming, then the window starts at the first refusal after the last window ended, not on the second’s boundary', () => {
    const delays = pacer(1);

    expect(delays(0, 1_500, 2_000, 2_499, 2_500)).toEqual([0, 0, 1_000, 1_000, 0]);
  });

  it('When refusals are rare, then every one is answered at once', () => {
    const delays = pacer(1);

    expect(delays(0, 5_000, 60_000, 3_600_000)).toEqual([0, 0, 0, 0]);
  });

  it('When perSecond is 0, then every refusal waits, the first included', () => {
    const delays = pacer(0, 250);

    expect(delays(0, 1, 1_000, 10_000)).toEqual([250, 250, 250, 250]);
  });

  it('When the clock starts at 0, then the first refusal still opens a window', () => {
    const delays = pacer(1);

    expect(delays(0, 0)).toEqual([0, 1_000]);
  });
});
