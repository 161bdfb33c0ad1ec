import { afterEach, describe, expect, it, vi } from 'vitest';
import { chaosOptions } from '#chaos/options.ts';

describe('npm run chaos flags', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('When no flag is given, then the mixed scenario runs on one broker with a 2 s writer session', () => {
    expect(chaosOptions([])).toMatchObject({
      scenario: { name: 'mixed' },
      brokers: 1,
      minCreates: 20_000,
      faultEveryMs: 15_000,
      sessionTimeoutMs: 2_000,
    });
    expect(chaosOptions(['--scenario', 'broker'])).toMatchObject({ brokers: 3, minCreates: 0 });
  });

  it('When a gray scenario or all of them are asked for, then they run on one broker without a creates quota', () => {
    for (const scenario of ['store-cut-one', 'reply-slow', 'gray'])
      expect(chaosOptions(['--scenario', scenario])).toMatchObject({
        scenario: scenario === 'gray' ? 'gray' : { name: scenario },
        brokers: 1,
        minCreates: 0,
      });
  });

  it('When the overload scenario is asked for with --secure, then the error says it measures the plaintext stack', () => {
    expect(() => chaosOptions(['--scenario', 'overload', '--secure'])).toThrow(
      '--scenario overload measures the plaintext stack: it does not run with --secure',
    );
  });

  it('When the overload scenario is asked for with --store-delay, then it runs with the store that far; any other scenario refuses it, and a delay that is not a number of ms is refused', () => {
    expect(chaosOptions(['--scenario', 'overload', '--store-delay', '10'])).toMatchObject({
      scenario: { name: 'overload' },
      storeDelayMs: 10,
    });
    expect(chaosOptions([])).toMatchObject({ storeDelayMs: 0 });
    expect(() => chaosOptions(['--scenario', 'mixed', '--store-delay', '10'])).toThrow(
      '--store-delay runs with --scenario overload only; got --scenario mixed',
    );
    expect(() => chaosOptions(['--scenario', 'overload', '--store-delay', '1.5'])).toThrow(
      '--store-delay takes milliseconds from 0 to 10000; got "1.5"',
    );
  });

  it('When a gray scenario is asked for with --secure, then the error says its links are plaintext', () => {
    expect(() => chaosOptions(['--scenario', 'writer-frozen', '--secure'])).toThrow(
      '--scenario writer-frozen puts proxies on plaintext links: it does not run with --secure',
    );
  });

  it('When a disk-full scenario is asked for by another user than root, then the error says it mounts a tmpfs', () => {
    vi.spyOn(process, 'getuid').mockReturnValue(1000);

    expect(() => chaosOptions(['--scenario', 'store-disk-full'])).toThrow(
      "--scenario store-disk-full mounts a tmpfs for the store's data: run it as root",
    );
    expect(() => chaosOptions(['--scenario', 'broker-disk-full'])).toThrow(
      "--scenario broker-disk-full mounts a tmpfs for the broker's data: run it as root",
    );
  });

  it('When a disk-full scenario is asked for by root, then it runs on one broker', () => {
    vi.spyOn(process, 'getuid').mockReturnValue(0);

    expect(chaosOptions(['--scenario', 'broker-disk-full'])).toMatchObject({
      scenario: { name: 'broker-disk-full' },
      brokers: 1,
    });
  });

  it('When a flag is wrong, then the error names it and what it takes', () => {
    expect(() => chaosOptions(['--scenario', 'meteor'])).toThrow(
      '--scenario takes mixed, scale, rolling, broker, writer-kill, gateways, store-disk-full, broker-disk-full, overload, store-cut-one, store-down-all, store-slow, store-half-open, broker-blackhole-gateway, writer-frozen, reply-slow, gray; got "meteor"',
    );
    expect(() => chaosOptions(['--scenario', 'broker', '--brokers', '1'])).toThrow(
      '--scenario broker kills one broker of three: run it with --brokers 3',
    );
    expect(() => chaosOptions(['--connections', '0'])).toThrow(
      '--connections takes a whole number from 1; got "0"',
    );
    expect(() => chaosOptions(['--fault-every', 'soon'])).toThrow(
      '--fault-every takes a whole number from 1; got "soon"',
    );
    expect(() => chaosOptions(['--store', 'mongo'])).toThrow(
      '--store takes sqlite or postgresql; got "mongo"',
    );
    expect(() => chaosOptions(['--session-timeout', '500'])).toThrow(
      `--session-timeout takes milliseconds from 1000 (the local brokers' least); got "500"`,
    );
  });
});
