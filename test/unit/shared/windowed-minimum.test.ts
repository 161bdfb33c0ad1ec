import { describe, expect, it } from 'vitest';
import { windowedMinimum } from '#shared/windowed-minimum.ts';

describe('windowedMinimum', () => {
  it('When values are seen, then it is the lowest of those within one to two halves, and nothing before the first', () => {
    const lowest = windowedMinimum(1_000);
    expect(lowest.value).toBeUndefined();

    lowest.observe(0, 10);
    lowest.observe(500, 30);
    expect(lowest.value).toBe(10);
    lowest.observe(1_000, 40);
    expect(lowest.value).toBe(10);
    lowest.observe(2_000, 50);
    expect(lowest.value).toBe(40);
  });

  it('When nothing is seen for a while, then it keeps its value, and the next value alone sets it after two halves', () => {
    const lowest = windowedMinimum(1_000);
    lowest.observe(0, 10);

    expect(lowest.value).toBe(10);
    lowest.observe(5_000, 70);
    expect(lowest.value).toBe(70);
  });
});
