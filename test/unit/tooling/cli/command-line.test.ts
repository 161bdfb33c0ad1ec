import { describe, expect, it } from 'vitest';
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
