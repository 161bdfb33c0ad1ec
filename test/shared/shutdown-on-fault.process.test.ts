import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { watchOutput } from '../support/processes/child-output.ts';

/** Runs the fixture on this Node (the pinned one: the test scripts start vitest on it). */
function run(...args: string[]) {
  const child = spawn(process.execPath, [
    join(import.meta.dirname, '..', 'fixtures', 'fault-after-start.ts'),
    ...args,
  ]);
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  const watched = watchOutput(child, 'the fixture');
  const logLines = () =>
    watched
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { ...watched, logLines };
}

describe('A service process meeting an error nothing handles', () => {
  it.each([
    ['uncaughtException', 'uncaught exception'],
    ['unhandledRejection', 'unhandled rejection'],
  ])(
    'When an %s reaches it, then it logs a fatal pino line with the error, runs its stop and exits 1',
    async (fault, words) => {
      const fixture = run(fault);

      expect(await fixture.closed).toBe(1);
      expect(fixture.logLines()).toContainEqual(
        expect.objectContaining({
          level: 60,
          name: 'fixture',
          msg: `${words}: stopping the service, then exiting with status 1`,
          err: expect.objectContaining({
            type: 'Error',
            message: 'boom',
            stack: expect.stringContaining('fault-after-start.ts') as unknown,
          }) as unknown,
        }),
      );
      expect(fixture.output().match(/^stop ran$/gm)).toHaveLength(1);
    },
  );

  it('When a second fault happens during its stop, then it exits 1 at once, logging that fault', async () => {
    const fixture = run('uncaughtException', '--fault-while-stopping');

    expect(await fixture.closed).toBe(1);
    expect(fixture.output()).toContain('stop ran');
    // pino writes asynchronously: `fatal` writes the lines waiting behind a write in flight at
    // once, so the first fault's line may come out after the second's; both must come out.
    const fatal = fixture.logLines().filter((line) => line.level === 60);
    expect(fatal).toHaveLength(2);
    expect(fatal).toContainEqual(
      expect.objectContaining({
        msg: 'unhandled rejection while stopping: exiting before the stop finished',
        err: expect.objectContaining({ message: 'second fault' }) as unknown,
      }),
    );
    expect(fatal).toContainEqual(
      expect.objectContaining({
        msg: 'uncaught exception: stopping the service, then exiting with status 1',
        err: expect.objectContaining({ message: 'boom' }) as unknown,
      }),
    );
  });
});
