import { spawnSync } from 'node:child_process';
import { chownSync } from 'node:fs';

/** PostgreSQL refuses to run as root: under root, its commands run as this user. */
export const SERVICE_USER = 'postgres';
/** `setpriv` then the command: runs it as the service user (setpriv execs, keeping the pid). */
export const SETPRIV_ARGS = [
  `--reuid=${SERVICE_USER}`,
  `--regid=${SERVICE_USER}`,
  '--init-groups',
  '--',
];

/** Hands a folder to the service user, which creates the data folder in it. */
export function chownToServiceUser(dir: string): void {
  const uid = Number(spawnSync('id', ['-u', SERVICE_USER], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', SERVICE_USER], { encoding: 'utf8' }).stdout.trim());
  chownSync(dir, uid, gid);
}
