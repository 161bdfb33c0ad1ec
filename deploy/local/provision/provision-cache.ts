import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';

const COMPLETE_MARKER = '.complete';

/**
 * Returns `<root>/<name>`, building it with `build` the first time. The build runs in a private
 * directory that is renamed into place only when it succeeded, under a cross-process lock, so a
 * second process provisioning at the same time waits for the first and then reuses its result,
 * and an interrupted build leaves nothing that looks complete.
 */
export async function provisionOnce(
  root: string,
  name: string,
  build: (dir: string) => Promise<void>,
): Promise<string> {
  const target = join(root, name);
  if (isProvisioned(root, name)) return target;

  await mkdir(root, { recursive: true });
  const release = await lockfile.lock(target, {
    realpath: false,
    lockfilePath: `${target}.lock`,
    stale: 30_000,
    update: 5_000,
    retries: { retries: 1_000, minTimeout: 200, maxTimeout: 1_000 },
  });
  try {
    if (isProvisioned(root, name)) return target;
    const workDir = `${target}.partial-${process.pid}`;
    await rm(workDir, { recursive: true, force: true });
    await mkdir(workDir, { recursive: true });
    try {
      await build(workDir);
      await writeFile(join(workDir, COMPLETE_MARKER), new Date().toISOString());
      await rm(target, { recursive: true, force: true });
      await rename(workDir, target);
    } catch (error) {
      await rm(workDir, { recursive: true, force: true });
      throw error;
    }
    return target;
  } finally {
    await release();
  }
}

export function isProvisioned(root: string, name: string): boolean {
  return existsSync(join(root, name, COMPLETE_MARKER));
}
