import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { USAGE } from '#chaos/options.ts';

describe('npm run chaos with a refused flag or --help', () => {
  const chaos = (...args: string[]) =>
    spawnSync(process.execPath, [join(projectRoot, 'chaos', 'run.ts'), ...args], {
      encoding: 'utf8',
    });

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
