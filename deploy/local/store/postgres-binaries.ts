import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findOnPath } from '../provision/tools.ts';

const DEBIAN_BINARIES = '/usr/lib/postgresql';

/** The directory of `initdb`/`postgres`: on PATH, or the newest of Debian's versioned folders. */
export function findPostgresBinaries(): string | null {
  const initdb = findOnPath('initdb');
  if (initdb !== null) return dirname(realpathSync(initdb));
  if (!existsSync(DEBIAN_BINARIES)) return null;
  const newest = readdirSync(DEBIAN_BINARIES)
    .filter((version) => existsSync(join(DEBIAN_BINARIES, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? null : join(DEBIAN_BINARIES, newest, 'bin');
}
