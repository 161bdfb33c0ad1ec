import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateRoot } from './paths.ts';

// A server whose owner was killed with SIGKILL outlives it. Each server is recorded here with
// its owner's pid; the next start from this clone kills the servers whose owner is gone.
const registry = join(stateRoot, 'servers');

interface Entry {
  owner: number;
  args: readonly string[];
}

export function rememberServer(pid: number, args: readonly string[]): void {
  mkdirSync(registry, { recursive: true });
  writeFileSync(join(registry, `${pid}.json`), JSON.stringify({ owner: process.pid, args }));
}

export function forgetServer(pid: number): void {
  rmSync(join(registry, `${pid}.json`), { force: true });
}

export function reapOrphans(): void {
  let files: string[];
  try {
    files = readdirSync(registry);
  } catch {
    return;
  }
  for (const file of files) {
    const pid = Number.parseInt(file, 10);
    const entry = readEntry(join(registry, file));
    if (entry && isAlive(entry.owner)) continue;
    const commandLine = commandLineOf(pid);
    // A suffix: a wrapper that execs (setpriv) leaves only the wrapped command's arguments.
    if (entry && commandLine && entry.args.join('\0').endsWith(commandLine)) {
      process.kill(pid, 'SIGKILL');
    }
    forgetServer(pid);
  }
}

function readEntry(file: string): Entry | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Entry;
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The arguments after argv[0], or null when the process is gone (Linux /proc). */
function commandLineOf(pid: number): string | null {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1, -1);
    return argv.join('\0');
  } catch {
    return null;
  }
}
