import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { watchOutput } from '../support/processes/child-output.ts';

function start(args: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, '..', 'fixtures', 'stop-forever.ts'), ...args],
    {
      env: { ...process.env, ...env },
    },
  );
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  return { ...watchOutput(child), kill: (signal: NodeJS.Signals) => child.kill(signal) };
}

describe('A service’s stop on SIGINT or SIGTERM', () => {
  it('When the stop finishes, then the process exits 0', async () => {
    const run = start(['--stop-in', '10']);
    await run.printed('ready');

    run.kill('SIGTERM');

    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('"msg":"stopping"');
  });

  it('When a second signal arrives while it stops, then the process exits 1 at once, saying why', async () => {
    const run = start();
    await run.printed('ready');
    run.kill('SIGINT');
    await run.printed('"msg":"stopping"');

    run.kill('SIGINT');

    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('second signal: exiting before the stop finished');
  });

  it('When the stop outlasts SHUTDOWN_TIMEOUT_MS, then the process exits 1, saying so', async () => {
    const run = start([], { SHUTDOWN_TIMEOUT_MS: '50' });
    await run.printed('ready');

    run.kill('SIGTERM');

    expect(await run.exited).toBe(1);
    expect(run.output()).toContain('the stop took longer than SHUTDOWN_TIMEOUT_MS: exiting');
  });
});
