import { describe, expect, it } from 'vitest';
import { sampleMachine } from '../../bench/process-stats.ts';

describe('sampleMachine', () => {
  it('When this process spins for a while, then its CPU shows as load-generator time and the machine as busy', () => {
    const sampler = sampleMachine();
    const until = Date.now() + 300;
    let spins = 0;
    while (Date.now() < until) spins++;

    const machine = sampler.stop();

    expect(spins).toBeGreaterThan(0);
    expect(machine.loadGeneratorCpuSeconds).toBeGreaterThanOrEqual(0.2);
    expect(machine.busyPercent).toBeGreaterThan(0);
    expect(machine.busyPercent + machine.iowaitPercent + machine.stealPercent).toBeLessThanOrEqual(
      100,
    );
  });
});
