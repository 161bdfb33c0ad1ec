import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../provision/paths.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';

export const GATEWAY_MAIN = 'services/gateway/src/main.ts';
export const WRITER_MAIN = 'services/writer/src/main.ts';

/**
 * V8 sizes its heap from the machine's memory: under steady load it grew the young generation to
 * 2 × 64 MiB and let the old one reach ~120 MiB before its first full collection, a one-time
 * RSS step of 20–40 % a minute into a soak. These caps keep the RSS flat at no measured cost in
 * throughput (docs/decisions/0036-v8-heap-caps.md). `npm run start:gateway|start:writer` read the same file, and
 * a test holds the Dockerfile's NODE_OPTIONS to it.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = (
  JSON.parse(readFileSync(join(projectRoot, 'scripts', 'node-options.json'), 'utf8')) as {
    services: string[];
  }
).services;

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
    args: [...SERVICE_NODE_FLAGS, join(projectRoot, options.script), ...(options.args ?? [])],
    env: options.env,
    logFile: join(options.logDir, `${options.name}.log`),
    stopTimeoutMs: 30_000,
  });
}
