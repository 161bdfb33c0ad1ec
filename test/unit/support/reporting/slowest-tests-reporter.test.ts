import { describe, expect, it } from 'vitest';
import {
  slowestTests,
  slowestTestsReport,
  type TimedTest,
} from '#test/support/reporting/slowest-tests-reporter.ts';

const aTest = (name: string, durationMs: number, timeoutMs = 60_000): TimedTest => ({
  name,
  durationMs,
  timeoutMs,
});

describe('The slowest-tests report of `npm test`', () => {
  it('When more tests ran than it lists, then it lists the slowest first and leaves the fast ones out', () => {
    const tests = [aTest('a', 300), aTest('b', 9_000), aTest('c', 40), aTest('d', 1_200)];

    expect(slowestTests(tests, 2).map(({ name }) => name)).toEqual(['b', 'd']);
  });

  it('When a test outside the slowest took over a quarter of its own short timeout, then it is listed too', () => {
    const tests = [
      aTest('slow, long timeout', 9_000, 60_000),
      aTest('fast, short timeout', 2_000, 5_000),
      aTest('fast, well inside', 1_000, 5_000),
    ];

    expect(slowestTests(tests, 1).map(({ name }) => name)).toEqual([
      'slow, long timeout',
      'fast, short timeout',
    ]);
  });

  it('When a test took more than a quarter of its timeout, then its line is marked and the last line counts it', () => {
    const lines = slowestTestsReport([
      aTest('[deploy] test/deploy/alerting-rules.test.ts > rules > When mutated', 60_967),
      aTest('[unit] test/unit/config.test.ts > config > When read', 15_000),
      aTest('[unit] test/unit/codecs.test.ts > codecs > When packed', 800, 5_000),
    ]);

    expect(lines).toEqual([
      'Slowest tests (duration / timeout; ! over 25% of its timeout):',
      '! 61.0 s / 60.0 s  [deploy] test/deploy/alerting-rules.test.ts > rules > When mutated',
      '  15.0 s / 60.0 s  [unit] test/unit/config.test.ts > config > When read',
      '   0.8 s /  5.0 s  [unit] test/unit/codecs.test.ts > codecs > When packed',
      '1 test(s) over a quarter of the timeout: a machine a few times slower fails them; batch or split their work (docs/how-to/develop.md).',
    ]);
  });

  it('When every test stayed within a quarter of its timeout, then the last line says so', () => {
    expect(slowestTestsReport([aTest('quick', 15_000)]).at(-1)).toBe(
      'Every test took at most a quarter of its timeout.',
    );
  });

  it('When no test ran, then it prints nothing', () => {
    expect(slowestTestsReport([])).toEqual([]);
  });
});
