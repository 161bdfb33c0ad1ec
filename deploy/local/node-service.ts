import { join } from 'node:path';
import { projectRoot } from './paths.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';

export const GATEWAY_MAIN = 'services/gateway/src/main.ts';
export const WRITER_MAIN = 'services/writer/src/main.ts';

export interface NodeServiceOptions {
  name: string;
  /** Relative to the project root. */
  script: string;
  args?: readonly string[];
  env: NodeJS.ProcessEnv;
  logDir: string;
}

/** Runs a TypeScript entry point of this project as a server process, logging to `<logDir>/<name>.log`. */
export function startNodeService(options: NodeServiceOptions): ServerProcess {
  return startServerProcess({
    name: options.name,
    command: process.execPath,
    args: [join(projectRoot, options.script), ...(options.args ?? [])],
    env: options.env,
    logFile: join(options.logDir, `${options.name}.log`),
    stopTimeoutMs: 30_000,
  });
}
