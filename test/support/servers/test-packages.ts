import { spawnSync } from 'node:child_process';
import {
  aptInstaller,
  commandPackage,
  provisionPackages,
  type SystemPackage,
} from '#local/provision/system-packages.ts';
import { findPostgresBinaries } from '#local/store/postgres-binaries.ts';

/** What `npm test` needs from the system's packages beside Node, Go and the npm dependencies. */
const TEST_PACKAGES: readonly SystemPackage[] = [
  commandPackage('openjdk-17-jre-headless', 'java', 'running Kafka'),
  commandPackage('maven', 'mvn', 'downloading the Kafka jars (once, then cached)'),
  commandPackage('openssl', 'openssl', 'the certificates of the secured stack (test/secured/)'),
  {
    name: 'postgresql',
    neededFor: "FerretDB's PostgreSQL backend",
    present: () => findPostgresBinaries() !== null,
  },
  {
    name: 'python3-venv',
    neededFor: 'schemathesis and the manifest linters, each in a venv of its own',
    present: (env) =>
      spawnSync('python3', ['-c', 'import ensurepip, venv'], { env, timeout: 30_000 }).status === 0,
  },
  commandPackage('chromium', 'chromium', 'opening the HTML reports in a headless browser'),
];

/** The global setups run in one process, each with a `globalThis` of its own: `process` is shared. */
const run = process as NodeJS.Process & { plantStoreTestPackagesProvisioned?: true };

/** TEST_PACKAGES provisioned (`provisionPackages`) once per run, whichever global setup asks first. */
export function provisionTestPackages(): void {
  if (run.plantStoreTestPackagesProvisioned) return;
  provisionPackages(TEST_PACKAGES, aptInstaller());
  run.plantStoreTestPackagesProvisioned = true;
}
