import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startFerretDb } from './ferretdb.ts';
import type { MongoServer, MongoServerOptions } from './mongo-server.ts';
import { freePort, LOOPBACK } from './ports.ts';
import { runLogged } from './run-logged.ts';
import { startServerProcess, type ServerProcess } from './server-process.ts';
import { findOnPath, MissingToolError, type Tool } from './tools.ts';
import { waitUntilReady } from './wait-until-ready.ts';

export const POSTGRES: Tool = {
  command: 'initdb',
  neededFor: 'the PostgreSQL backend of FerretDB',
  install: 'install PostgreSQL 15+ server binaries (Debian/Ubuntu: apt-get install postgresql)',
};

const DEBIAN_BINARIES = '/usr/lib/postgresql';
const SERVICE_USER = 'postgres';
const DATABASE = 'ferretdb';
const SETPRIV_ARGS = [`--reuid=${SERVICE_USER}`, `--regid=${SERVICE_USER}`, '--init-groups', '--'];

export interface PostgresServer {
  /** The URL FerretDB's PostgreSQL handler connects to. */
  readonly url: string;
  readonly process: ServerProcess;
  stop(): Promise<void>;
}

/** The directory of `initdb`/`postgres`: on PATH, or the newest of Debian's versioned folders. */
export function findPostgresBinaries(): string | null {
  const initdb = findOnPath('initdb');
  if (initdb !== null) return dirname(realpathSync(initdb));
  if (!existsSync(DEBIAN_BINARIES)) return null;
  const newest = readdirSync(DEBIAN_BINARIES)
    .filter((version) => existsSync(join(DEBIAN_BINARIES, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? null : join(DEBIAN_BINARIES, newest, 'bin');
}

/**
 * PostgreSQL as a local process on loopback, its data in `dir`. PostgreSQL refuses to run as
 * root, so under root it runs as the `postgres` user (setpriv execs, so the pid is the server's),
 * which needs to reach `dir`: every folder above it must be searchable by that user.
 */
export async function startPostgres(options: {
  dir: string;
  port: number;
  logFile: string;
}): Promise<PostgresServer> {
  const bin = findPostgresBinaries();
  if (bin === null) throw new MissingToolError([POSTGRES]);
  const asRoot = process.getuid?.() === 0;
  const command = (tool: string, args: string[]): [string, string[]] =>
    asRoot ? ['setpriv', [...SETPRIV_ARGS, join(bin, tool), ...args]] : [join(bin, tool), args];

  mkdirSync(options.dir, { recursive: true });
  const data = join(options.dir, 'data');
  if (!existsSync(join(data, 'PG_VERSION'))) {
    if (asRoot) chownToServiceUser(options.dir);
    await runLogged(
      ...command('initdb', [
        '-D',
        data,
        '-U',
        SERVICE_USER,
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--no-sync',
      ]),
      { cwd: options.dir, logFile: options.logFile },
    );
  }
  const [postgres, postgresArgs] = command('postgres', [
    '-D',
    data,
    '-p',
    String(options.port),
    '-c',
    `listen_addresses=${LOOPBACK}`,
    '-c',
    `unix_socket_directories=${options.dir}`,
  ]);
  const server = startServerProcess({
    name: 'PostgreSQL',
    command: postgres,
    args: postgresArgs,
    logFile: options.logFile,
  });
  const ready = () => {
    const probe = spawnSync(join(bin, 'pg_isready'), ['-h', LOOPBACK, '-p', String(options.port)], {
      timeout: 5_000,
    });
    return probe.status === 0
      ? Promise.resolve()
      : Promise.reject(new Error('not accepting connections yet'));
  };
  await waitUntilReady(server, ready, 30_000);
  const exists = spawnSync(
    join(bin, 'psql'),
    [
      '-h',
      LOOPBACK,
      '-p',
      String(options.port),
      '-U',
      SERVICE_USER,
      '-tAc',
      `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`,
    ],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (exists.stdout.trim() !== '1') {
    await runLogged(
      join(bin, 'createdb'),
      ['-h', LOOPBACK, '-p', String(options.port), '-U', SERVICE_USER, DATABASE],
      {
        cwd: options.dir,
        logFile: options.logFile,
      },
    );
  }
  return {
    url: `postgres://${SERVICE_USER}@${LOOPBACK}:${options.port}/${DATABASE}`,
    process: server,
    stop: () => server.stop(),
  };
}

function chownToServiceUser(dir: string): void {
  const uid = Number(spawnSync('id', ['-u', SERVICE_USER], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', SERVICE_USER], { encoding: 'utf8' }).stdout.trim());
  chownSync(dir, uid, gid);
}

/** FerretDB with its data in a PostgreSQL of its own (`<dir>/postgres`); stops both. */
export async function startFerretDbOnPostgres(
  binary: string,
  options: MongoServerOptions,
): Promise<MongoServer> {
  const postgres = await startPostgres({
    dir: join(options.dir, 'postgres'),
    port: await freePort(),
    logFile: join(dirname(options.logFile), 'postgres.log'),
  });
  try {
    const ferretDb = await startFerretDb(binary, options, {
      handler: 'postgresql',
      url: postgres.url,
    });
    return {
      uri: ferretDb.uri,
      process: ferretDb.process,
      backend: postgres.process,
      stop: async () => {
        await ferretDb.stop();
        await postgres.stop();
      },
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}
