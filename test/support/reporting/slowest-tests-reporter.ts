import type { Reporter, TestModule, Vitest } from 'vitest/node';

export interface TimedTest {
  /** The project, the file and the test's full name. */
  name: string;
  durationMs: number;
  timeoutMs: number;
}

/** How many of the slowest tests the report lists, beside every test over its share. */
const LISTED = 10;
/**
 * A timeout is a limit on hangs, not a measure: a test that takes more than this share of it on
 * a fast machine fails on a machine a few times slower, or on a busy day.
 */
const TIMEOUT_SHARE = 1 / 4;

const overShare = ({ durationMs, timeoutMs }: TimedTest) => durationMs > timeoutMs * TIMEOUT_SHARE;

/** The `count` slowest tests, slowest first, followed by any other test over its share. */
export function slowestTests(tests: readonly TimedTest[], count = LISTED): TimedTest[] {
  return tests
    .toSorted((a, b) => b.durationMs - a.durationMs)
    .filter((test, rank) => rank < count || overShare(test));
}

const seconds = (ms: number) => `${(ms / 1_000).toFixed(1)} s`;

/** The report's lines: each test's duration and timeout, `!` where it took over its share. */
export function slowestTestsReport(tests: readonly TimedTest[], count = LISTED): string[] {
  const listed = slowestTests(tests, count);
  if (listed.length === 0) return [];
  const over = listed.filter(overShare).length;
  const widthOf = (texts: string[]) => Math.max(...texts.map((text) => text.length));
  const durations = widthOf(listed.map(({ durationMs }) => seconds(durationMs)));
  const timeouts = widthOf(listed.map(({ timeoutMs }) => seconds(timeoutMs)));
  return [
    `Slowest tests (duration / timeout; ! over ${String(TIMEOUT_SHARE * 100)}% of its timeout):`,
    ...listed.map(
      (test) =>
        `${overShare(test) ? '!' : ' '} ${seconds(test.durationMs).padStart(durations)} / ${seconds(test.timeoutMs).padStart(timeouts)}  ${test.name}`,
    ),
    over === 0
      ? 'Every test took at most a quarter of its timeout.'
      : `${String(over)} test(s) over a quarter of the timeout: a machine a few times slower fails them; batch or split their work (docs/how-to/develop.md).`,
  ];
}

/** Prints the slowest tests of the run after the default reporter's summary. */
export class SlowestTestsReporter implements Reporter {
  #vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.#vitest = vitest;
  }

  onTestRunEnd(testModules: readonly TestModule[]): void {
    const tests = testModules.flatMap((module) =>
      [...module.children.allTests()].flatMap((test): TimedTest[] => {
        const diagnostic = test.diagnostic();
        if (diagnostic === undefined) return [];
        return [
          {
            name: `[${test.project.name}] ${module.relativeModuleId} > ${test.fullName}`,
            durationMs: diagnostic.duration,
            timeoutMs: test.options.timeout ?? test.project.config.testTimeout,
          },
        ];
      }),
    );
    const lines = slowestTestsReport(tests);
    if (lines.length > 0) this.#vitest?.logger.log(`\n${lines.join('\n')}`);
  }
}
