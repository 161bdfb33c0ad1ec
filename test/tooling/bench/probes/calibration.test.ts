import { describe, expect, it } from 'vitest';
import { calibrate, calibrationLine } from '#bench/probes/calibration.ts';
import { toMarkdown } from '#bench/report/markdown/markdown.ts';
import type { Report } from '#bench/report/results.ts';

describe('The machine calibration at the top of every bench report', () => {
  it('When the machine is calibrated, then a bare HTTP server and a CPU-bound loop are measured, and the report opens with both', async () => {
    const calibration = await calibrate();

    expect(calibration.httpRequestsPerSecond).toBeGreaterThan(100);
    expect(calibration.sha256PerSecond).toBeGreaterThan(1_000);
    const report = {
      startedAt: 'now',
      calibration,
      settings: {},
      results: [],
    } as unknown as Report;
    expect(toMarkdown(report).split('\n').slice(0, 3)).toEqual([
      '# Benchmark now',
      '',
      calibrationLine(calibration),
    ]);
    expect(calibrationLine({ httpRequestsPerSecond: 21_000, sha256PerSecond: 480_000 })).toBe(
      'Machine calibration: a bare Node HTTP server answered 21000 req/s (32 connections, 3 s); one thread computed 480000 SHA-256 digests of 1 KiB per second.',
    );
  });
});
