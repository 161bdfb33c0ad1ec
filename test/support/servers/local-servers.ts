import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { findOnPath } from '#local/provision/tools.ts';

/**
 * Tests of the local provisioning start servers of their own and need Java (and Maven or Go
 * on a cold cache). A developer who tests against Docker may lack them; CI must not.
 */
export const localServersUnavailable = localServersLack();

function localServersLack(): string | null {
  return process.env.CI !== 'true' && findOnPath('java') === null
    ? 'needs Java 17+ to run Kafka as a local process'
    : null;
}

/**
 * A secured stack also needs openssl for its certificates, and runs FerretDB: a developer with
 * `mongod` on PATH gets the plain stack only. CI must have neither problem.
 */
export const securedStackUnavailable = securedStackLacks();

/** Why a secured stack cannot start now (a global setup asks once it has installed packages). */
export function securedStackLacks(): string | null {
  return (
    localServersLack() ??
    (process.env.CI === 'true'
      ? null
      : findOnPath('openssl') === null
        ? "needs openssl for the secured stack's certificates"
        : findOnPath('mongod') !== null
          ? 'the secured stack runs FerretDB with TLS; mongod is on PATH'
          : null)
  );
}

/**
 * The limit on hangs of a test that starts, stops or restarts servers or service processes of its
 * own (a stack, a broker, the store, writers): one start and stop takes 10 to 40 s on two loaded
 * cores, so the 60 s of other tests would make its outcome a matter of the machine's pace.
 */
export const OWN_STACK_TIMEOUT_MS = 300_000;

export async function temporaryDirectory(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plant-store-test-'));
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return dir;
}
