import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const projectRoot = resolve(import.meta.dirname, '..', '..');

/** Downloads and builds, shared by every clone on the machine and keyed by version. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PLANT_STORE_CACHE_DIR) return resolve(env.PLANT_STORE_CACHE_DIR);
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'plant-store');
}

/** Data directories and logs of the servers started from this clone (git-ignored). */
export const stateRoot = join(projectRoot, '.local');
