import { describe, expect, it } from 'vitest';
import { runScript } from '#test/support/processes/entry-point.ts';
import { benchOptions, USAGE } from '#bench/options.ts';

describe('npm run bench flags', () => {
  it('When no flag is given, then every variant is measured once with 64 connections, 15 s of warm-up and 20 s measured', () => {
    expect(benchOptions([])).toEqual({
      variants: ['ceiling', 'direct', 'e2e', 'nestjs'],
      connections: 64,
      duration: 20,
      warmup: 60,
      sequential: 1000,
      repeat: 1,
      partitions: 3,
      writers: 1,
      gateways: 1,
      brokers: 1,
      store: undefined,
      secure: false,
      preload: 0,
      soakSeconds: 0,
      logLevel: 'info',
      idsBeyond2To53: false,
      cpuProfile: false,
      rates: [],
      capacityTargetMs: null,
      storeDelayMs: 0,
    });
  });

  it('When every flag is given, then each is taken', () => {
    expect(
      benchOptions([
        ...['--variants', 'e2e, direct', '--connections', '128', '--duration', '5'],
        ...['--warmup', '0', '--sequential', '0', '--repeat', '30', '--partitions', '12'],
        ...['--writers', '3', '--gateways', '2', '--brokers', '3', '--store', 'sqlite'],
        ...['--secure', '--preload', '1000000', '--soak', '300', '--log-level', 'debug'],
        ...['--ids-beyond-2-53', '--cpu-prof', '--store-delay', '10'],
      ]),
    ).toEqual({
      variants: ['e2e', 'direct'],
      connections: 128,
      duration: 5,
      warmup: 0,
      sequential: 0,
      repeat: 30,
      partitions: 12,
      writers: 3,
      gateways: 2,
      brokers: 3,
      store: 'sqlite',
      secure: true,
      preload: 1_000_000,
      soakSeconds: 300,
      logLevel: 'debug',
      idsBeyond2To53: true,
      cpuProfile: true,
      rates: [],
      capacityTargetMs: null,
      storeDelayMs: 10,
    });
    expect(benchOptions(['--store', 'postgresql'])).toMatchObject({ store: 'postgresql' });
  });

  it('When --rates and --capacity are given, then the open loop measures those rates and that target', () => {
    expect(benchOptions(['--rates', '500, 1000,6000', '--capacity', '50'])).toMatchObject({
      rates: [500, 1000, 6000],
      capacityTargetMs: 50,
      duration: 20,
    });
  });

  it('When an open-loop flag is wrong, then the error names it and what it takes', () => {
    expect(() => benchOptions(['--rates', '500,fast'])).toThrow(
      '--rates takes a number of requests a second (1 or more); got "fast"',
    );
    expect(() => benchOptions(['--rates', '0'])).toThrow(
      '--rates takes a number of requests a second (1 or more); got "0"',
    );
    expect(() =>
      benchOptions(['--rates', Array.from({ length: 33 }, () => '100').join(',')]),
    ).toThrow('--rates takes at most 32 rates; got 33');
    expect(() => benchOptions(['--capacity', '50ms'])).toThrow(
      '--capacity takes a number of milliseconds of p99 (1 or more); got "50ms"',
    );
    expect(() => benchOptions(['--capacity', '50', '--duration', '10'])).toThrow(
      '--capacity measures each step for --duration seconds, at least 20; got "10"',
    );
    expect(() => benchOptions(['--rates', '100', '--preload', '1000'])).toThrow(
      '--preload runs without --rates and --capacity (their ids would overlap)',
    );
  });

  it('When --help or -h is given, then the usage is asked for, whatever else is', () => {
    expect(benchOptions(['--help'])).toBe('help');
    expect(benchOptions(['-h', '--connections', '0'])).toBe('help');
  });

  it('When a number is wrong, then the error names its flag and what it takes', () => {
    const refusals: [string, string, string][] = [
      ['--connections', '0', 'connections (1 or more)'],
      ['--duration', '0', 'seconds (1 or more)'],
      ['--duration', '2.5', 'seconds (1 or more)'],
      ['--warmup', 'soon', 'seconds (0 or more)'],
      ['--sequential', '', 'creates (0 or more)'],
      ['--repeat', '31', 'repetitions (1 to 30)'],
      ['--partitions', '1001', 'partitions (1 to 1000)'],
      ['--writers', '0', 'writer processes (1 or more)'],
      ['--gateways', '1e2', 'gateway processes (1 or more)'],
      ['--preload', '0x10', 'plants (0 or more)'],
      ['--soak', '5m', 'seconds (0 or more)'],
      ['--store-delay', '2.5', 'milliseconds (0 to 10000)'],
      ['--store-delay', '10001', 'milliseconds (0 to 10000)'],
    ];
    for (const [flag, value, takes] of refusals) {
      expect(() => benchOptions([flag, value])).toThrow(
        `${flag} takes a number of ${takes}; got "${value}"`,
      );
    }
  });

  it('When any other flag is wrong, then the error names it and what it takes', () => {
    expect(() => benchOptions(['--variants', 'e2e,kafka'])).toThrow(
      '--variants takes bare, ceiling, direct, e2e, nestjs; got "kafka"',
    );
    expect(() => benchOptions(['--brokers', '2'])).toThrow(
      '--brokers takes 1 (one node) or 3 (a replicated cluster), got "2"',
    );
    expect(() => benchOptions(['--store', 'mongo'])).toThrow(
      '--store takes sqlite or postgresql; got "mongo"',
    );
    expect(() => benchOptions(['--log-level', 'loud'])).toThrow(
      '--log-level takes fatal, error, warn, info, debug, trace, silent; got "loud"',
    );
    expect(() => benchOptions(['--rate', '100'])).toThrow("Unknown option '--rate'");
    expect(() => benchOptions(['--connections'])).toThrow(
      "Option '--connections <value>' argument missing",
    );
  });

  it('When nestjs is measured with --secure or --ids-beyond-2-53, then it is refused', () => {
    const refusal =
      '--variants nestjs runs without --secure and --ids-beyond-2-53 (its JSON numbers are doubles)';
    expect(() => benchOptions(['--secure'])).toThrow(refusal);
    expect(() => benchOptions(['--variants', 'e2e,nestjs', '--ids-beyond-2-53'])).toThrow(refusal);
    expect(benchOptions(['--variants', 'e2e', '--secure', '--ids-beyond-2-53'])).toMatchObject({
      secure: true,
      idsBeyond2To53: true,
    });
  });
});

describe('npm run bench with a refused flag or --help', () => {
  const bench = (...args: string[]) => runScript('bench/run.ts', args);

  it('When a flag is refused, then it exits 2 before starting anything, with the error and the usage', () => {
    const result = bench('--repeat', '0');

    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `--repeat takes a number of repetitions (1 to 30); got "0"\n\n${USAGE}\n`,
    );
  });

  it('When --help is given, then it prints the usage and exits 0', () => {
    const result = bench('--help');

    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${USAGE}\n`);
  });
});
