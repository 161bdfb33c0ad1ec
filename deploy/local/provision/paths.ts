import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const projectRoot = resolve(import.meta.dirname, '..', '..', '..');

/** Downloads and builds, shared by every clone on the machine and keyed by version. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PLANT_STORE_CACHE_DIR) return resolve(env.PLANT_STORE_CACHE_DIR);
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'plant-store');
}

/** Data directories and logs of the servers started from this clone (git-ignored). */
export const stateRoot = join(projectRoot, '.local');

/**
 * The default data directory of a local stack named `name` (`infra`, `start`): a secured stack's
 * users and a cluster's nodes are made when Kafka is formatted, so each kind keeps a folder of
 * its own.
 */
export function stackDir(name: string, kind: { secure: boolean; brokers: number }): string {
  const brokers = kind.brokers === 1 ? '' : `-${String(kind.brokers)}-brokers`;
  return join(stateRoot, `${name}${kind.secure ? '-secure' : ''}${brokers}`);
}
