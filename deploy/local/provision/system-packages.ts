import { spawnSync } from 'node:child_process';
import { findOnPath } from './tools.ts';

/** A program from the operating system's packages, and how to tell whether it is there. */
export interface SystemPackage {
  /** Debian's package that provides it. */
  name: string;
  neededFor: string;
  present(env: NodeJS.ProcessEnv): boolean;
}

/** A package whose program is on PATH under `command`. */
export function commandPackage(name: string, command: string, neededFor: string): SystemPackage {
  return { name, neededFor, present: (env) => findOnPath(command, env) !== null };
}

/** How packages are installed here (what it installed is checked after it). */
export interface Installer {
  install(names: readonly string[]): void;
}

class MissingPackagesError extends Error {
  constructor(missing: readonly SystemPackage[]) {
    const names = missing.map(({ name }) => name).join(' ');
    super(
      [
        `Missing system packages (${String(missing.length)}):`,
        ...missing.map(({ name, neededFor }) => `  - ${name}, for ${neededFor}`),
        `Install them as root: apt-get update && apt-get install -y ${names}`,
      ].join('\n'),
    );
    this.name = 'MissingPackagesError';
  }
}

/** apt-get as root, its output on this terminal; null when not root or without apt-get. */
export function aptInstaller(env: NodeJS.ProcessEnv = process.env): Installer | null {
  if (process.getuid?.() !== 0 || findOnPath('apt-get', env) === null) return null;
  const apt = (args: string[]) =>
    spawnSync('apt-get', args, {
      stdio: 'inherit',
      env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    }).status === 0;
  return {
    install: (names) => {
      if (apt(['update', '-q'])) apt(['install', '-y', '-q', ...names]);
    },
  };
}

/**
 * Installs the packages of `needed` that are missing, once, with `installer`; throws one error that
 * names each package still missing (and the command that installs them all) when it cannot.
 */
export function provisionPackages(
  needed: readonly SystemPackage[],
  installer: Installer | null,
  env: NodeJS.ProcessEnv = process.env,
): void {
  const missing = () => needed.filter((pkg) => !pkg.present(env));
  const before = missing();
  if (before.length === 0) return;
  if (installer !== null) {
    console.log(`Installing ${before.map(({ name }) => name).join(', ')} (system packages)…`);
    installer.install(before.map(({ name }) => name));
  }
  const after = installer === null ? before : missing();
  if (after.length > 0) throw new MissingPackagesError(after);
}
