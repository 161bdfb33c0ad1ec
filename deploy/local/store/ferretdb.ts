import { chmod, cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mongoUri, pingMongo } from './mongo-ping.ts';
import { LOOPBACK } from '../provision/ports.ts';
import { provisionOnce } from '../provision/provision-cache.ts';
import { GO_PACKAGES_COMPILED, runLogged } from '../process/run-logged.ts';
import { startServerProcess } from '../process/server-process.ts';
import type { MongoServer, MongoServerOptions } from './mongo-server.ts';
import { waitUntilReady } from '../process/wait-until-ready.ts';

const FERRETDB_VERSION = 'v1.24.2';
export const FERRETDB_CACHE_NAME = `ferretdb-${FERRETDB_VERSION}`;
const MODULE = 'github.com/FerretDB/FerretDB';

/**
 * Builds FerretDB once per machine. `go install module@version` does not work for it: the module
 * zip lacks build/version/version.txt, without which the binary panics, so the source is copied
 * and the file written before building.
 */
export async function provisionFerretDb(cache: string, logFile: string): Promise<string> {
  const home = await provisionOnce(cache, FERRETDB_CACHE_NAME, async (dir) => {
    const download = await runLogged(
      'go',
      ['mod', 'download', '-json', `${MODULE}@${FERRETDB_VERSION}`],
      {
        cwd: dir,
        logFile,
        progress: { step: `downloading FerretDB ${FERRETDB_VERSION}'s source` },
      },
    );
    const moduleDir = (JSON.parse(download) as { Dir: string }).Dir;
    const source = join(dir, 'src');
    await cp(moduleDir, source, { recursive: true });
    await makeWritable(source);
    await writeFile(join(source, 'build', 'version', 'version.txt'), FERRETDB_VERSION);
    // `-v` names each package as it is compiled: the progress line counts them.
    await runLogged(
      'go',
      ['build', '-v', '-trimpath', '-o', join(dir, 'ferretdb'), './cmd/ferretdb'],
      {
        cwd: source,
        logFile,
        progress: {
          step: `building FerretDB ${FERRETDB_VERSION} (Go: a few minutes the first time)`,
          counts: GO_PACKAGES_COMPILED,
        },
      },
    );
    await rm(source, { recursive: true, force: true });
  });
  return join(home, 'ferretdb');
}

/** Where FerretDB keeps the data: SQLite files in its directory, or a PostgreSQL database. */
export type FerretDbBackend = { handler: 'sqlite' } | { handler: 'postgresql'; url: string };

export async function startFerretDb(
  binary: string,
  options: MongoServerOptions,
  backend: FerretDbBackend = { handler: 'sqlite' },
): Promise<MongoServer> {
  await mkdir(options.dir, { recursive: true });
  const server = startServerProcess({
    name: `FerretDB ${FERRETDB_VERSION} on ${backend.handler === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
    command: binary,
    args: [
      `--handler=${backend.handler}`,
      backend.handler === 'sqlite'
        ? `--sqlite-url=file:${options.dir}/`
        : `--postgresql-url=${backend.url}`,
      ...(options.tls === undefined
        ? [`--listen-addr=${LOOPBACK}:${options.port}`]
        : [
            '--listen-addr=',
            `--listen-tls=${LOOPBACK}:${options.port}`,
            `--listen-tls-cert-file=${options.tls.certFile}`,
            `--listen-tls-key-file=${options.tls.keyFile}`,
          ]),
      '--repl-set-name=rs0',
      '--telemetry=disable',
      '--debug-addr=-',
      `--state-dir=${options.dir}`,
      '--log-level=warn',
      // FerretDB v1's own users are an experiment behind this flag; its password stays off the
      // command line.
      ...(options.user === undefined
        ? []
        : [
            '--test-enable-new-auth',
            `--setup-database=${options.user.database}`,
            `--setup-username=${options.user.name}`,
          ]),
    ],
    env: {
      ...process.env,
      DO_NOT_TRACK: '1',
      ...(options.user === undefined ? {} : { FERRETDB_SETUP_PASSWORD: options.user.password }),
    },
    logFile: options.logFile,
  });
  const uri = mongoUri(LOOPBACK, options.port, options.tls?.caFile, options.user);
  await waitUntilReady(server, () => pingMongo(uri), 30_000);
  return { uri, process: server, stop: () => server.stop() };
}

/** The Go module cache is read-only; the copy needs a version file written into it. */
async function makeWritable(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await makeWritable(path);
    else await chmod(path, 0o644);
  }
}
