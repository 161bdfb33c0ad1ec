import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { PERF_NODE_OPTIONS, perfUnusable, startPerfRecord } from '#bench/probes/perf-record.ts';

const dir = mkdtempSync(join(tmpdir(), 'perf-record-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('startPerfRecord', () => {
  it('When perf cannot attach (no such process, or no perf at all), then stopping says why instead of giving samples', async () => {
    // Beyond the kernel's pid_max: no process has it.
    const recording = startPerfRecord([4_194_305], join(dir, 'none.data'));

    await expect(recording.stop(new Map([[4_194_305, 'gateway']]))).rejects.toThrow(/\S/);
  });

  // Needs perf itself, as the bench does; where it cannot run, the bench falls back to V8.
  it.runIf(perfUnusable() === undefined)(
    'When perf records a busy Node process and is stopped, then its main thread is read by function',
    async () => {
      const spinning = spawn(
        process.execPath,
        [
          ...PERF_NODE_OPTIONS.split(' '),
          '-e',
          'function spin() { const end = Date.now() + 4000; while (Date.now() < end); } spin();',
        ],
        { stdio: 'ignore' },
      );
      const pid = spinning.pid ?? 0;
      try {
        await sleep(500);
        const recording = startPerfRecord([pid], join(dir, 'spin.data'));
        await sleep(1_000);

        const profile = await recording.stop(new Map([[pid, 'spinner']]));

        const [summary] = profile.summaries;
        expect(summary?.busySamples).toBeGreaterThan(200);
        expect(summary?.byFunction[0]?.name).toMatch(/^spin /);
        expect(existsSync(`/tmp/perf-${String(pid)}.map`)).toBe(false);
        expect(
          readdirSync(process.cwd()).filter((file) => file.includes(`-${String(pid)}-v8.log`)),
        ).toEqual([]);
      } finally {
        spinning.kill();
      }
    },
  );
});
