import { describe, expect, it } from 'vitest';
import { percentile } from '#tooling/statistics/percentile.ts';
import { median } from '#tooling/statistics/spread.ts';

describe('percentile (nearest rank)', () => {
  const values = Array.from({ length: 100 }, (_, index) => index + 1 + 0.123);

  it('keeps sub-millisecond precision to 0.01 ms', () => {
    expect(percentile(values, 50)).toBe(50.12);
    expect(percentile(values, 99)).toBe(99.12);
    expect(percentile(values, 100)).toBe(100.12);
  });

  it('answers the only value of a single sample and NaN for none', () => {
    expect(percentile([0.734], 99)).toBe(0.73);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('median', () => {
  it('When the count is odd, then it is the middle value; when even, the mean of the middle two', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
