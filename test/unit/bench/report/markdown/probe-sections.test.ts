import { describe, expect, it } from 'vitest';
import { profileLines } from '#bench/report/markdown/probe-sections.ts';

const summary = {
  process: 'gateway',
  file: 'perf.data',
  busySamples: 10,
  byArea: [{ name: 'kafkajs', percent: 60 }],
  byFunction: [{ name: 'send kafkajs:10', percent: 60 }],
};

describe('profileLines', () => {
  it('When a run was profiled, then each process has its areas and functions', () => {
    expect(profileLines('e2e', [summary], 'perf')).toEqual([
      'CPU profile of e2e, gateway (10 busy samples; `perf.data`):',
      '- by area: kafkajs 60.0 %',
      '- by function: send kafkajs:10 60.0 %',
      '',
    ]);
  });

  it('When perf failed while it recorded, then the report says so instead of a profile', () => {
    expect(profileLines('e2e', [], 'perf failed: perf script exited with 1')).toEqual([
      'CPU profile of e2e: none, perf failed: perf script exited with 1.',
      '',
    ]);
  });
});
