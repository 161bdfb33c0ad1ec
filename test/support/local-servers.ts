import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { findOnPath } from '../../deploy/local/tools.ts';

/**
 * Tests of the local provisioning start servers of their own and need Java (and Maven or Go
 * on a cold cache). A developer who tests against Docker may lack them; CI must not.
 */
export const localServersUnavailable =
  process.env.CI !== 'true' && findOnPath('java') === null
    ? 'needs Java 17+ to run Kafka as a local process'
    : null;

/**
 * A secured stack also needs openssl for its certificates, and runs FerretDB: a developer with
 * `mongod` on PATH gets the plain stack only. CI must have neither problem.
 */
export const securedStackUnavailable =
  localServersUnavailable ??
  (process.env.CI === 'true'
    ? null
    : findOnPath('openssl') === null
      ? "needs openssl for the secured stack's certificates"
      : findOnPath('mongod') !== null
        ? 'the secured stack runs FerretDB with TLS; mongod is on PATH'
        : null);

export async function temporaryDirectory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-test-'));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}
