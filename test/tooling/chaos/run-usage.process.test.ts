import { describe, expect, it } from 'vitest';
import { runScript } from '#test/support/processes/entry-point.ts';
import { USAGE } from '#chaos/options.ts';

describe('npm run chaos with a refused flag or --help', () => {
  const chaos = (...args: string[]) => runScript('chaos/run.ts', args);

  it('When a flag is refused, then it exits 2 before starting anything, with the error and the usage', () => {
    const result = chaos('--connections', '0');

    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`--connections takes a whole number from 1; got "0"\n\n${USAGE}\n`);
  });

  it('When --help is given, then it prints the usage and exits 0', () => {
    const result = chaos('--help');

    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${USAGE}\n`);
  });
});
