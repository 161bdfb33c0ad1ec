import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { cacheRoot } from '#local/provision/paths.ts';
import { provisionOnce } from '#local/provision/provision-cache.ts';
import { runLogged } from '#local/process/run-logged.ts';

const MIN_PYTHON = [3, 11] as const;
const INSTALL_PYTHON =
  'install Python 3.11 or newer with its venv module (Debian/Ubuntu: apt-get install python3 python3-venv)';

export interface PinnedVenv {
  /** The cache entry's name, before the digest of the requirements. */
  name: string;
  /** A requirements file with every hash. */
  requirements: string;
  /** What the tool is needed for, as an error names it. */
  neededFor: string;
}

/**
 * The Python of a virtual environment holding a requirements file's pins, in the machine's cache
 * under a name derived from the file: installed once, again only when the file changes, and shared
 * by every clone. Installs only wheels whose hashes the file lists.
 */
export async function pinnedVenvPython({
  name,
  requirements,
  neededFor,
}: PinnedVenv): Promise<string> {
  const needed = `needed to install and run ${neededFor}`;
  const { python, version } = requirePython(needed);
  const digest = createHash('sha256')
    .update(await readFile(requirements))
    .digest('hex')
    .slice(0, 16);
  // A venv links to its Python: another version of python3 gets a venv of its own.
  const entry = `${name}-${digest}-py${version}`;
  const logFile = join(cacheRoot(), `${entry}.install.log`);
  const venv = await provisionOnce(cacheRoot(), entry, (dir) =>
    installPinned(python, dir, { requirements, logFile, needed }),
  );
  return join(venv, 'bin', 'python');
}

/**
 * Makes a virtual environment in `venv` with `python` and installs `requirements` in it, wheels
 * only and each checked against its hash. Built where it is then renamed into place, its own
 * scripts name the build path: everything runs as `<venv>/bin/python -m …`.
 */
export async function installPinned(
  python: string,
  venv: string,
  { requirements, logFile, needed }: { requirements: string; logFile: string; needed: string },
): Promise<void> {
  await createVenv(python, venv, logFile, needed);
  await runLogged(
    join(venv, 'bin', 'python'),
    [
      ...['-m', 'pip', 'install', '--no-input', '--disable-pip-version-check'],
      ...['--require-hashes', '--only-binary', ':all:', '-r', requirements],
    ],
    { cwd: venv, logFile },
  );
}

async function createVenv(
  python: string,
  dir: string,
  logFile: string,
  needed: string,
): Promise<void> {
  try {
    await runLogged(python, ['-m', 'venv', dir], { cwd: dirname(dir), logFile });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `python3 cannot create a virtual environment, ${needed}: ${INSTALL_PYTHON}.\n${detail}`,
      { cause: error },
    );
  }
}

/** `python3` on PATH, recent enough and able to create a venv; otherwise says what to install. */
export function requirePython(needed: string): { python: string; version: string } {
  const probe = spawnSync(
    'python3',
    ['-c', 'import sys, venv, ensurepip; print("%d.%d" % sys.version_info[:2])'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (probe.error !== undefined) {
    throw new Error(`Missing python3 on PATH, ${needed}: ${INSTALL_PYTHON}.`);
  }
  if (probe.status !== 0) {
    throw new Error(
      `python3 cannot create a virtual environment (${probe.stderr.trim().split('\n').at(-1) ?? ''}), ` +
        `${needed}: ${INSTALL_PYTHON}.`,
    );
  }
  const version = probe.stdout.trim();
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new Error(`python3 is Python ${version}, ${needed}: ${INSTALL_PYTHON}.`);
  }
  return { python: 'python3', version };
}
