import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { elapsed, progressLine } from '#tooling/progress/progress-line.ts';
import { GO_PACKAGES_COMPILED, runLogged } from '#local/process/run-logged.ts';
import { temporaryDirectory } from '#test/support/servers/local-servers.ts';

function output(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('A progress line', () => {
  it('When stdout is a terminal, then each update rewrites the line in place, a log line goes above it, and the end leaves it', () => {
    const out = output(true);
    const line = progressLine(out);

    line.update('e2e: 1 s');
    line.update('e2e: 2 s');
    line.log('chaos: +15.0 s restart the broker');
    line.end('e2e: done in 2 s');

    expect(out.written.join('')).toBe(
      '\r\x1b[2Ke2e: 1 s\r\x1b[2Ke2e: 2 s\r\x1b[2Kchaos: +15.0 s restart the broker\ne2e: 2 s\r\x1b[2Ke2e: done in 2 s\n',
    );
  });

  it('When stdout is a pipe or a CI log, then there is no cursor control: a plain line at most every 5 s, and log lines as they come', () => {
    const out = output(false);
    let now = 0;
    const line = progressLine(out, { now: () => now });

    for (now = 0; now <= 11_000; now += 1_000) line.update(`e2e: ${String(now / 1_000)} s`);
    line.log('a change');
    line.end('e2e: done in 11 s');

    expect(out.written).toEqual([
      'e2e: 0 s\n',
      'e2e: 5 s\n',
      'e2e: 10 s\n',
      'a change\n',
      'e2e: done in 11 s\n',
    ]);
    expect(out.written.join('')).not.toContain('\r');
    expect(out.written.join('')).not.toContain('\x1b');
  });

  it('When time is shown, then seconds up to a minute, minutes and seconds after', () => {
    expect([elapsed(999), elapsed(59_999), elapsed(65_000), elapsed(600_000)]).toEqual([
      '0 s',
      '59 s',
      '1 min 05 s',
      '10 min 00 s',
    ]);
  });

  it('When a build step runs, then it is named with its time, the units its tool reported done and its log, a silent tool is said to be still working, and its end is told', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const dir = await temporaryDirectory();
    const logFile = join(dir, 'provision.log');
    const out = output(true);

    // The tool stays silent until the test has moved the clock 2 s on, then ends.
    const step = runLogged(
      'sh',
      [
        '-c',
        'echo example.com/a/b; echo runtime; echo "not: a package"; until [ -e silent-enough ]; do sleep 0.02; done',
      ],
      {
        cwd: dir,
        logFile,
        progress: { step: 'building it', counts: GO_PACKAGES_COMPILED, out, silentAfterMs: 500 },
      },
    );
    // The log's first line is the command, which names the output too.
    await vi.waitFor(() => {
      expect(readFileSync(logFile, 'utf8')).toMatch(/^not: a package$/m);
    });
    await vi.advanceTimersByTimeAsync(2_200);
    writeFileSync(join(dir, 'silent-enough'), '');
    await step;

    expect(out.written[0]).toBe(
      `\r\x1b[2K  building it: 0 s, 0 packages compiled (log: ${logFile})`,
    );
    const shown = out.written.map((text) => text.replace('\r\x1b[2K', ''));
    expect(shown).toContainEqual(
      expect.stringMatching(
        /^ {2}building it: \d s, 2 packages compiled, nothing printed for \d s: still working \(log: /,
      ),
    );
    expect(shown.at(-1)).toMatch(/^ {2}building it: done in \d s, 2 packages compiled\n$/);
    expect(readFileSync(logFile, 'utf8')).toContain('not: a package');
  });

  it('When the step fails, then its end says so', async () => {
    const dir = await temporaryDirectory();
    const out = output(false);

    await expect(
      runLogged('sh', ['-c', 'exit 3'], {
        cwd: dir,
        logFile: join(dir, 'provision.log'),
        progress: { step: 'building it', out },
      }),
    ).rejects.toThrow('failed (exit 3)');
    expect(out.written.at(-1)).toBe('  building it: failed in 0 s\n');
  });
});
