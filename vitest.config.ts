import { defineConfig } from 'vitest/config';
import { SlowestTestsReporter } from './test/support/slowest-tests-reporter.ts';

/** `npm test` runs every project; `npm run test:unit|test:integration|test:deploy|test:secured` one. */
export default defineConfig({
  test: {
    // Limits on hangs, not measures: a test takes at most a quarter of its timeout, which the
    // slowest-tests report after each run checks (docs/development.md).
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // expect.poll waits on a condition; its default limit of 1 s is one a busy machine outlasts.
    expect: { poll: { timeout: 15_000 } },
    reporters: ['default', new SlowestTestsReporter()],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          // test/tooling: tests of the tooling that start processes or a browser, or measure for
          // seconds; the unit project stays in-process and quick.
          include: ['test/{gateway,writer,infra,tooling}/**/*.test.ts'],
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
