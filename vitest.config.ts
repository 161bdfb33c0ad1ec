import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultExclude, defineConfig } from 'vitest/config';
import { SlowestTestsReporter } from '#test/support/reporting/slowest-tests-reporter.ts';

const UNIT_TESTS = 'test/unit/**/*.test.ts';
/**
 * The unit tests share their worker's modules (isolate: false): loading kafkajs, mongodb and
 * typebox once per worker instead of once per file is most of their time. A file that replaces a
 * module with vi.mock or vi.doMock cannot share them: its mock misses a module an earlier file loaded, and the
 * next file can get it. Those files run apart, each with modules of its own.
 */
const MOCKING_UNIT_TESTS = globSync(UNIT_TESTS, { cwd: import.meta.dirname }).filter((file) =>
  /vi\.(?:mock|doMock)\(/.test(readFileSync(join(import.meta.dirname, file), 'utf8')),
);

/**
 * `npm test` runs every project; `npm run test:unit` the unit and unit-isolated ones,
 * `npm run test:integration|test:deploy|test:secured` one.
 */
export default defineConfig({
  test: {
    // Limits on hangs, not measures: a test takes at most a quarter of its timeout, which the
    // slowest-tests report after each run checks (docs/how-to/develop.md).
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // expect.poll waits on a condition; its default limit of 1 s is one a busy machine outlasts.
    expect: { poll: { timeout: 15_000 } },
    reporters: ['default', new SlowestTestsReporter()],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [UNIT_TESTS],
          exclude: [...defaultExclude, ...MOCKING_UNIT_TESTS],
          pool: 'threads',
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'unit-isolated', include: MOCKING_UNIT_TESTS },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // test/tooling: tests of the tooling that start processes or a browser, or measure for
          // seconds; test/shared: the shared modules in processes of their own. The unit project
          // stays in-process and quick.
          include: ['test/{gateway,writer,shared,infra,tooling}/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'deploy',
          include: ['test/deploy/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'secured',
          include: ['test/secured/**/*.test.ts'],
          globalSetup: ['test/secured/global-setup.ts'],
        },
      },
    ],
  },
});
