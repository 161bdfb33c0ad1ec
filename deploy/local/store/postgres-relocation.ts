import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SETPRIV_ARGS } from './postgres-user.ts';

const RELOCATED_PREFIX = 'plant-store-postgres-';
/** In a relocated folder: the folder it stands in for, so that it can go once that is gone. */
const ORIGIN_FILE = 'origin';

/** Under root, PostgreSQL runs as `postgres`, which must be able to reach its data folder. */
export function reachableByServiceUser(dir: string): string {
  if (process.getuid?.() !== 0) return dir;
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const probe = spawnSync('setpriv', [...SETPRIV_ARGS, 'test', '-x', parent]);
  if (probe.status === 0) return dir;
  removeOrphanedRelocations(tmpdir());
  const hash = createHash('sha256').update(dir).digest('hex').slice(0, 16);
  const relocated = join(tmpdir(), `${RELOCATED_PREFIX}${hash}`);
  mkdirSync(relocated, { recursive: true });
  writeFileSync(join(relocated, ORIGIN_FILE), dir);
  return relocated;
}

/**
 * Relocated data folders whose stack folder is gone (a test's temporary folder, a deleted
 * `mktemp -d` clone) and whose PostgreSQL is not running: each held ~50 MB, and a test run
 * left a dozen behind until the disk filled.
 */
export function removeOrphanedRelocations(under: string): void {
  for (const entry of readdirSync(under)) {
    if (!entry.startsWith(RELOCATED_PREFIX)) continue;
    const folder = join(under, entry);
    let origin: string;
    try {
      origin = readFileSync(join(folder, ORIGIN_FILE), 'utf8');
    } catch {
      continue;
    }
    if (existsSync(dirname(origin)) || postgresRuns(join(folder, 'data'))) continue;
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Whether the PostgreSQL of a data folder is running, by the pid in its `postmaster.pid`. */
function postgresRuns(dataDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
