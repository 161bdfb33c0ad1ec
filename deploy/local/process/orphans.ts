import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cacheRoot } from '../provision/paths.ts';
import { isRunning, processIdentity, pidScope, type ProcessIdentity } from './process-identity.ts';

// A server runs in a session of its own, so one whose launcher was killed (SIGKILL, the OOM
// killer) outlives it. Every server is recorded in a registry of this user on this machine, in
// the cache directory that every clone shares, and any later start stops the servers whose
// launcher is gone. A process is known by its pid and its start time: a pid that the system has
// given to another process since is never killed. Each entry is written by its launcher alone and
// named after its server, so concurrent starts need no lock: a reader skips an entry that is
// still being written.

export interface ServerEntry {
  readonly owner: ProcessIdentity;
  readonly uid: number;
  readonly name: string;
  readonly command: readonly string[];
}

export interface OrphanedServer extends ProcessIdentity {
  readonly name: string;
}

/** The registry of this user's servers: pids name processes only within one boot and pid namespace. */
export function registryDir(cache: string = cacheRoot()): string {
  const { boot, namespace } = pidScope();
  return join(cache, 'servers', boot, namespace);
}

export function recordServer(
  dir: string,
  server: ProcessIdentity,
  entry: Omit<ServerEntry, 'owner' | 'uid'>,
  owner: ProcessIdentity | null = processIdentity(process.pid),
): void {
  if (owner === null) return;
  mkdirSync(dir, { recursive: true });
  const recorded: ServerEntry = { owner, uid: currentUid(), ...entry };
  writeFileSync(join(dir, entryName(server)), JSON.stringify(recorded));
}

/** Called once the server has exited: until then its entry lets a later start find it. */
export function forgetServer(dir: string, server: ProcessIdentity): void {
  rmSync(join(dir, entryName(server)), { force: true });
}

/**
 * Sends SIGKILL to every recorded server of this user whose owner is gone, without waiting for
 * them to exit, and removes the entries of servers that have exited (and of earlier boots).
 */
export function killOrphans(dir: string = registryDir()): OrphanedServer[] {
  removeEarlierBoots(dir);
  const killed: OrphanedServer[] = [];
  for (const file of entryFiles(dir)) {
    const server = identityFromName(file);
    if (server === null) continue;
    const entry = readEntry(join(dir, file));
    // In a cache directory shared between users, another user's servers are theirs to stop.
    if (entry !== null && entry.uid !== currentUid()) continue;
    if (!isRunning(server)) {
      forgetServer(dir, server);
      continue;
    }
    // Null: its owner is writing it right now (one that died doing so sent the server SIGTERM).
    if (entry === null || isRunning(entry.owner)) continue;
    try {
      process.kill(server.pid, 'SIGKILL');
      killed.push({ ...server, name: entry.name });
    } catch {
      // It exited since, or is not ours to signal: either way nothing is left to do.
    }
  }
  return killed;
}

/**
 * `killOrphans`, then waits until they are gone (their ports free again) and forgets them. One
 * still there after 10 s (stuck in the kernel) is left to the caller's port check to report.
 */
export async function stopOrphanedServers(dir: string = registryDir()): Promise<OrphanedServer[]> {
  const killed = killOrphans(dir);
  const deadline = Date.now() + 10_000;
  while (killed.some(isRunning) && Date.now() < deadline) await sleep(50);
  for (const server of killed) if (!isRunning(server)) forgetServer(dir, server);
  return killed;
}

/** For `npm start` and `npm run infra`, before they check their ports. */
export async function stopServersOfKilledLaunchers(): Promise<void> {
  const stopped = await stopOrphanedServers();
  if (stopped.length === 0) return;
  const which = stopped.map(({ name, pid }) => `${name} (pid ${String(pid)})`).join(', ');
  console.log(`Stopped the servers of a launcher that was killed without stopping them: ${which}`);
}

function entryName(server: ProcessIdentity): string {
  return `${String(server.pid)}-${String(server.startTime)}.json`;
}

function identityFromName(file: string): ProcessIdentity | null {
  const match = /^(\d+)-(\d+)\.json$/.exec(file);
  return match ? { pid: Number(match[1]), startTime: Number(match[2]) } : null;
}

function entryFiles(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readEntry(file: string): ServerEntry | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ServerEntry;
  } catch {
    return null;
  }
}

/** Every process recorded before the last boot is gone. */
function removeEarlierBoots(dir: string): void {
  const boots = dirname(dirname(dir));
  const current = dirname(dir);
  for (const boot of entryFiles(boots)) {
    if (join(boots, boot) === current) continue;
    try {
      rmSync(join(boots, boot), { recursive: true, force: true });
    } catch {
      // Another user's, in a cache directory shared between users.
    }
  }
}

function currentUid(): number {
  return process.getuid?.() ?? -1;
}
