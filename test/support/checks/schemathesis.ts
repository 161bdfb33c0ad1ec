import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot, projectRoot } from '#local/provision/paths.ts';
import { provisionOnce } from '#local/provision/provision-cache.ts';
import { runLogged } from '#local/process/run-logged.ts';
import { runPythonModule, type PythonRun } from '../processes/python-module.ts';

const REQUIREMENTS = join(
  projectRoot,
  'test',
  'support',
  'checks',
  'schemathesis',
  'requirements.txt',
);
const MIN_PYTHON = [3, 11] as const;
const NEEDED =
  'needed to install and run schemathesis for test/gateway/openapi-fuzz.response.test.ts';
const INSTALL_PYTHON =
  'install Python 3.11 or newer with its venv module (Debian/Ubuntu: apt-get install python3 python3-venv)';

/**
 * The Python of a virtual environment holding the pinned schemathesis, in the machine's cache
 * under a name derived from the requirements file: installed once, again only when the file
 * changes, and shared by every clone. Installs only wheels whose hashes the file lists.
 */
export async function schemathesisPython(): Promise<string> {
  const { python, version } = requirePython();
  const requirements = await readFile(REQUIREMENTS);
  const digest = createHash('sha256').update(requirements).digest('hex').slice(0, 16);
  // A venv links to its Python: another version of python3 gets a venv of its own.
  const name = `schemathesis-${digest}-py${version}`;
  const logFile = join(cacheRoot(), `${name}.install.log`);
  const venv = await provisionOnce(cacheRoot(), name, async (dir) => {
    await createVenv(python, dir, logFile);
    // The venv is renamed into place once complete: its own scripts would name the build path, so
    // everything runs as `<venv>/bin/python -m …`, which finds the venv wherever it is.
    await runLogged(
      join(dir, 'bin', 'python'),
      [
        ...['-m', 'pip', 'install', '--no-input', '--disable-pip-version-check'],
        ...['--require-hashes', '--only-binary', ':all:', '-r', REQUIREMENTS],
      ],
      { cwd: dir, logFile },
    );
  });
  return join(venv, 'bin', 'python');
}

async function createVenv(python: string, dir: string, logFile: string): Promise<void> {
  try {
    await runLogged(python, ['-m', 'venv', dir], { cwd: dir, logFile });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `python3 cannot create a virtual environment, ${NEEDED}: ${INSTALL_PYTHON}.\n${detail}`,
      { cause: error },
    );
  }
}

/** `python3` on PATH, recent enough and able to create a venv; otherwise says what to install. */
function requirePython(): { python: string; version: string } {
  const probe = spawnSync(
    'python3',
    ['-c', 'import sys, venv, ensurepip; print("%d.%d" % sys.version_info[:2])'],
    { encoding: 'utf8', timeout: 30_000 },
  );
  if (probe.error !== undefined) {
    throw new Error(`Missing python3 on PATH, ${NEEDED}: ${INSTALL_PYTHON}.`);
  }
  if (probe.status !== 0) {
    throw new Error(
      `python3 cannot create a virtual environment (${probe.stderr.trim().split('\n').at(-1) ?? ''}), ` +
        `${NEEDED}: ${INSTALL_PYTHON}.`,
    );
  }
  const version = probe.stdout.trim();
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new Error(`python3 is Python ${version}, ${NEEDED}: ${INSTALL_PYTHON}.`);
  }
  return { python: 'python3', version };
}

/** Runs `schemathesis <args>` to completion. */
export function runSchemathesis(
  python: string,
  args: readonly string[],
  { cwd, env = {} }: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<PythonRun> {
  return runPythonModule(python, 'schemathesis.cli', args, {
    cwd,
    env: { COLUMNS: '120', ...env },
  });
}
