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

export async function temporaryDirectory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-test-'));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}
