import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { readFlags } from '#tooling/cli/command-line.ts';

describe('readFlags', () => {
  const options = { rate: { type: 'string', default: '10' } } as const;

  it('When the flags are known, then their values are read, with the defaults of the others', () => {
    const flags = readFlags({ args: [], options });

    expect(flags !== 'help' && flags.values.rate).toBe('10');
  });

  it('When --help or -h is among the flags, then the usage is asked for, whatever else is', () => {
    expect(readFlags({ args: ['--help'], options })).toBe('help');
    expect(readFlags({ args: ['--rate', '5', '-h'], options })).toBe('help');
  });

  it('When a flag is unknown or lacks its value, then it throws the error parseArgs names', () => {
    expect(() => readFlags({ args: ['--rates', '5'], options })).toThrow(
      "Unknown option '--rates'",
    );
    expect(() => readFlags({ args: ['--rate'], options })).toThrow(
      "Option '--rate <value>' argument missing",
    );
  });
});

describe('npm run report with a refused command line or --help', () => {
  const USAGE = 'npm run report -- <bench or chaos run .json> [--image <main chart .svg>]';
  const report = (...args: string[]) =>
    spawnSync(process.execPath, [join(projectRoot, 'tooling', 'report.ts'), ...args], {
      encoding: 'utf8',
    });

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
