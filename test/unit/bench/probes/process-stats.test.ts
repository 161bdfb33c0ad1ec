import { describe, expect, it } from 'vitest';
import { sampleMachine } from '#bench/probes/process-stats.ts';

describe('sampleMachine', () => {
  it('When this process spins for a while, then its CPU shows as load-generator time and the machine as busy', () => {
    const sampler = sampleMachine();
    const started = process.cpuUsage();
    const spent = () => {
      const { user, system } = process.cpuUsage(started);
      return (user + system) / 1e6;
    };
    while (spent() < 0.3);

    const machine = sampler.stop();

    expect(machine.loadGeneratorCpuSeconds).toBeGreaterThanOrEqual(0.3);
    expect(machine.loadGeneratorCpuSeconds).toBeLessThan(30);
    expect(machine.busyPercent).toBeGreaterThan(0);
    expect(machine.busyPercent + machine.iowaitPercent + machine.stealPercent).toBeLessThanOrEqual(
      100,
    );
  });
});
