import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { projectRoot } from '#local/provision/paths.ts';

/**
 * What a clone of the working tree holds: the files git tracks or would track (new and not
 * ignored), without one deleted but not yet staged.
 */
export function projectFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: projectRoot,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(projectRoot, file)));
}

/** Copies `files` of the project into `to`, at the same paths. */
export async function copyProjectFiles(files: readonly string[], to: string): Promise<void> {
  for (const file of files) {
    await mkdir(dirname(join(to, file)), { recursive: true });
    await copyFile(join(projectRoot, file), join(to, file));
  }
}
