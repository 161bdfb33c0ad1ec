import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface Tool {
  command: string;
  neededFor: string;
  install: string;
}

export const JAVA: Tool = {
  command: 'java',
  neededFor: 'running Kafka',
  install: 'install a Java 17+ runtime (Debian/Ubuntu: apt-get install openjdk-17-jre-headless)',
};
export const MAVEN: Tool = {
  command: 'mvn',
  neededFor: 'downloading the Kafka jars (once, then cached)',
  install: 'install Maven (Debian/Ubuntu: apt-get install maven)',
};
export const GO: Tool = {
  command: 'go',
  neededFor: 'building FerretDB (once, then cached) when no `mongod` is on PATH',
  install: 'install Go 1.22 or newer from the official Go distribution or your OS packages',
};
export const POSTGRES: Tool = {
  command: 'initdb',
  neededFor: 'the PostgreSQL backend of FerretDB',
  install: 'install PostgreSQL 15+ server binaries (Debian/Ubuntu: apt-get install postgresql)',
};
export const OPENSSL: Tool = {
  command: 'openssl',
  neededFor: 'the certificates of the secured stack (--secure)',
  install: 'install OpenSSL (Debian/Ubuntu: apt-get install openssl)',
};

const ALTERNATIVE =
  'Alternatively run a Docker engine (the tests then use testcontainers) or point ' +
  'KAFKA_BROKERS and MONGODB_URI at running servers.';

export class MissingToolError extends Error {
  /** `alternative`: what to do instead of installing them, null where nothing else serves. */
  constructor(missing: readonly Tool[], alternative: string | null = ALTERNATIVE) {
    super(
      [
        `Missing ${missing.map((tool) => tool.command).join(', ')} on PATH:`,
        ...missing.map((tool) => `  - ${tool.command}, for ${tool.neededFor}: ${tool.install}`),
        ...(alternative === null ? [] : [alternative]),
      ].join('\n'),
    );
    this.name = 'MissingToolError';
  }
}

export function findOnPath(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** Throws one error naming every missing tool, so a newcomer fixes them all in one go. */
export function requireTools(tools: readonly Tool[], env: NodeJS.ProcessEnv = process.env): void {
  const missing = tools.filter((tool) => findOnPath(tool.command, env) === null);
  if (missing.length > 0) throw new MissingToolError(missing);
  if (tools.includes(JAVA)) requireJava17(env);
}

function requireJava17(env: NodeJS.ProcessEnv): void {
  const probe = spawnSync('java', ['-version'], { env, encoding: 'utf8', timeout: 15_000 });
  const version = /version "(\d+)(?:\.(\d+))?/.exec(`${probe.stderr}${probe.stdout}`);
  const major = version ? Number(version[1] === '1' ? version[2] : version[1]) : 0;
  if (major < 17) {
    throw new MissingToolError([
      { ...JAVA, neededFor: `running Kafka (found Java ${major || '?'})` },
    ]);
  }
}
