import { describe, expect, it } from 'vitest';
import { runScript } from '#test/support/processes/entry-point.ts';

describe('npm run report with a refused command line or --help', () => {
  const USAGE = 'npm run report -- <bench or chaos run .json> [--image <main chart .svg>]';
  const report = (...args: string[]) => runScript('tooling/report.ts', args);

  it('When no recorded run is named, then it exits 2 with the error and the usage', () => {
    const result = report('--image', 'main.svg');

    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`a recorded run, its .json file, is needed\n\n${USAGE}\n`);
  });

  it('When --help is given, then it prints the usage and exits 0', () => {
    const result = report('--help');

    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${USAGE}\n`);
  });
});
