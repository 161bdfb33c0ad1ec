import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runLogged } from '../process/run-logged.ts';
import { startServerProcess, type ServerProcess } from '../process/server-process.ts';
import { waitUntilReady } from '../process/wait-until-ready.ts';
import { LOOPBACK } from '../provision/ports.ts';
import { MissingToolError, POSTGRES } from '../provision/tools.ts';
import { findPostgresBinaries } from './postgres-binaries.ts';
import { chownToServiceUser, SERVICE_USER, SETPRIV_ARGS } from './postgres-user.ts';

const DATABASE = 'ferretdb';

export interface PostgresServer {
  /** The URL FerretDB's PostgreSQL handler connects to. */
  readonly url: string;
  /** Runs one SQL statement in FerretDB's database; resolves with its rows, tab-separated. */
  sql(statement: string): string;
  readonly process: ServerProcess;
  stop(): Promise<void>;
}

/**
 * PostgreSQL as a local process on loopback, its data in `dir`. PostgreSQL refuses to run as
 * root, so under root it runs as the `postgres` user (setpriv execs, so the pid is the server's),
 * which needs to reach `dir`: every folder above it must be searchable by that user.
 */
export async function startPostgres(options: PostgresOptions): Promise<PostgresServer> {
  const bin = findPostgresBinaries();
  if (bin === null) throw new MissingToolError([POSTGRES]);
  const asRoot = process.getuid?.() === 0;
  const command: Command = (tool, args) =>
    asRoot ? ['setpriv', [...SETPRIV_ARGS, join(bin, tool), ...args]] : [join(bin, tool), args];

  mkdirSync(options.dir, { recursive: true });
  const data = join(options.dir, 'data');
  if (!existsSync(join(data, 'PG_VERSION'))) {
    if (asRoot) chownToServiceUser(options.dir);
    await initdb(command, data, options);
  }
  const server = await startServer(command, bin, data, options);
  await ensureDatabase(bin, options);
  return {
    url: `postgres://${SERVICE_USER}@${LOOPBACK}:${options.port}/${DATABASE}`,
    process: server,
    sql: (statement) => psql(bin, options.port, statement),
    stop: () => server.stop(),
  };
}

interface PostgresOptions {
  dir: string;
  port: number;
  logFile: string;
}

/** The command line that runs one of PostgreSQL's tools, as the `postgres` user under root. */
type Command = (tool: string, args: string[]) => [string, string[]];

async function initdb(command: Command, data: string, options: PostgresOptions): Promise<void> {
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

/** The server on `data`, once it accepts connections. */
async function startServer(
  command: Command,
  bin: string,
  data: string,
  options: PostgresOptions,
): Promise<ServerProcess> {
  const [postgres, postgresArgs] = command('postgres', [
    '-D',
    data,
    '-p',
    String(options.port),
    '-c',
    `listen_addresses=${LOOPBACK}`,
    '-c',
    `unix_socket_directories=${options.dir}`,
    // Each autovacuum in the log, with its duration: what the store did when a run stalled.
    '-c',
    'log_autovacuum_min_duration=0',
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
  return server;
}

/** FerretDB's database, created unless it exists. */
async function ensureDatabase(bin: string, options: PostgresOptions): Promise<void> {
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
}

function psql(bin: string, port: number, statement: string): string {
  const run = spawnSync(
    join(bin, 'psql'),
    [
      '-h',
      LOOPBACK,
      '-p',
      String(port),
      '-U',
      SERVICE_USER,
      '-v',
      'ON_ERROR_STOP=1',
      '-tAc',
      statement,
      DATABASE,
    ],
    { encoding: 'utf8', timeout: 600_000 },
  );
  if (run.status !== 0) throw new Error(`psql failed (${statement}): ${run.stderr.trim()}`);
  return run.stdout.trim();
}
