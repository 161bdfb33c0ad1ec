import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SERVICE_NODE_FLAGS } from '#local/process/node-service.ts';
import { projectRoot } from '#local/provision/paths.ts';

const run = promisify(execFile);

export interface EntryPointExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs an entry point of the project (`script`, from the root) with `env` to its end (at most 20 s). */
export async function runEntryPoint(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<EntryPointExit> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [...SERVICE_NODE_FLAGS, join(projectRoot, script), ...args],
      { env, timeout: 20_000 },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as EntryPointExit;
    return { code, stdout, stderr };
  }
}

/** Runs a script of the project (`script`, from the root) on this Node to its end, as `npm run` would. */
export function runScript(script: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(process.execPath, [join(projectRoot, script), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
}
