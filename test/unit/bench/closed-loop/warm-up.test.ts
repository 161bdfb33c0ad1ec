import { describe, expect, it } from 'vitest';
import { warmedUp } from '#bench/closed-loop/warm-up.ts';

const step = (cpuUsPerCreate: number, p99Ms: number) => ({ cpuUsPerCreate, p99Ms });

describe('When a bench run is warm', () => {
  it('When there is no step to compare with yet, then it is not', () => {
    expect(warmedUp([])).toBe(false);
    expect(warmedUp([step(400, 20)])).toBe(false);
  });

  it('When CPU per create or p99 still fell by 5 % or more in the last step, then it is not', () => {
    expect(warmedUp([step(470, 20), step(440, 20)])).toBe(false);
    expect(warmedUp([step(400, 30), step(400, 25)])).toBe(false);
  });

  it('When neither fell by 5 % in the last step, whatever they did before, then it is', () => {
    expect(warmedUp([step(900, 80), step(400, 20), step(390, 19.5)])).toBe(true);
    expect(warmedUp([step(400, 20), step(420, 24)])).toBe(true);
  });
});
