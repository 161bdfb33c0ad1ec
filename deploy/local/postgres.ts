import { spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MongoClient } from 'mongodb';
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
/** The writer's default database and collection (MONGODB_DATABASE), which local stacks index. */
const PLANTS = { database: 'plantstore', collection: 'plants' };
const SETPRIV_ARGS = [`--reuid=${SERVICE_USER}`, `--regid=${SERVICE_USER}`, '--init-groups', '--'];

export interface PostgresServer {
  /** The URL FerretDB's PostgreSQL handler connects to. */
  readonly url: string;
  /** Runs one SQL statement in FerretDB's database; resolves with its rows, tab-separated. */
  sql(statement: string): string;
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
    sql: (statement) => psql(bin, options.port, statement),
    stop: () => server.stop(),
  };
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

/** The fields a duplicate is read by, and their indexes. */
const LOOKUP_INDEXES = [
  ['_id', `${PLANTS.collection}_id_jsonb_path`],
  ['name', `${PLANTS.collection}_name_jsonb_path`],
] as const;

/**
 * FerretDB pushes a find by `_id` down as `_jsonb -> '_id' @> …`, which its own btree on
 * `_jsonb -> '_id'` cannot serve: every duplicate read scanned the collection. A GIN index with
 * `jsonb_path_ops` serves that containment: 1–5 ms per read at 300,000 plants instead of 45 ms,
 * growing with the store (docs/decisions/0029-duplicates-read-by-index.md, "Duplicates are read by `_id` equality, one find per
 * id, and the local store indexes them"). Ids beyond ±2^53 it pushes down only as "every id beyond
 * 2^53", so the writer reads a duplicate by id and name, and the name has the same kind of index.
 * Without GIN's pending list (`fastupdate`), which every read scans until it is merged: about 1 ms
 * instead of 6–7 ms at 200,000 plants under inserts. FerretDB names the table, so the collection
 * is created first and its table read from FerretDB's metadata.
 */
async function indexPlantLookups(
  uri: string,
  postgres: Pick<PostgresServer, 'sql'>,
): Promise<string> {
  const client = new MongoClient(uri);
  try {
    const db = client.db(PLANTS.database);
    const exists = await db.listCollections({ name: PLANTS.collection }).hasNext();
    if (!exists) await db.createCollection(PLANTS.collection);
  } finally {
    await client.close();
  }
  const table = postgres.sql(
    `SELECT _jsonb ->> 'table' FROM "${PLANTS.database}"._ferretdb_database_metadata ` +
      `WHERE _jsonb ->> '_id' = '${PLANTS.collection}'`,
  );
  if (!/^\w+$/.test(table)) throw new Error(`FerretDB has no table for ${PLANTS.collection}`);
  for (const [field, index] of LOOKUP_INDEXES) {
    postgres.sql(
      `CREATE INDEX IF NOT EXISTS ${index} ON "${PLANTS.database}".${table} ` +
        `USING gin ((_jsonb -> '${field}') jsonb_path_ops) WITH (fastupdate = off)`,
    );
    // Stores made before fastupdate was turned off keep their index: turn it off there too.
    postgres.sql(`ALTER INDEX "${PLANTS.database}".${index} SET (fastupdate = off)`);
  }
  return `"${PLANTS.database}".${table}`;
}

const RELOCATED_PREFIX = 'plant-store-postgres-';
/** In a relocated folder: the folder it stands in for, so that it can go once that is gone. */
const ORIGIN_FILE = 'origin';

/** Under root, PostgreSQL runs as `postgres`, which must be able to reach its data folder. */
function reachableByServiceUser(dir: string): string {
  if (process.getuid?.() !== 0) return dir;
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const probe = spawnSync('setpriv', [...SETPRIV_ARGS, 'test', '-x', parent]);
  if (probe.status === 0) return dir;
  removeOrphanedRelocations(tmpdir());
  const hash = createHash('sha256').update(dir).digest('hex').slice(0, 16);
  const relocated = join(tmpdir(), `${RELOCATED_PREFIX}${hash}`);
  mkdirSync(relocated, { recursive: true });
  writeFileSync(join(relocated, ORIGIN_FILE), dir);
  return relocated;
}

/**
 * Relocated data folders whose stack folder is gone (a test's temporary folder, a deleted
 * `mktemp -d` clone) and whose PostgreSQL is not running: each held ~50 MB, and a test run
 * left a dozen behind until the disk filled.
 */
export function removeOrphanedRelocations(under: string): void {
  for (const entry of readdirSync(under)) {
    if (!entry.startsWith(RELOCATED_PREFIX)) continue;
    const folder = join(under, entry);
    let origin: string;
    try {
      origin = readFileSync(join(folder, ORIGIN_FILE), 'utf8');
    } catch {
      continue;
    }
    if (existsSync(dirname(origin)) || postgresRuns(join(folder, 'data'))) continue;
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Whether the PostgreSQL of a data folder is running, by the pid in its `postmaster.pid`. */
function postgresRuns(dataDir: string): boolean {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function chownToServiceUser(dir: string): void {
  const uid = Number(spawnSync('id', ['-u', SERVICE_USER], { encoding: 'utf8' }).stdout.trim());
  const gid = Number(spawnSync('id', ['-g', SERVICE_USER], { encoding: 'utf8' }).stdout.trim());
  chownSync(dir, uid, gid);
}

/**
 * FerretDB with its data in a PostgreSQL of its own (`<dir>/postgres`, or a folder in the system's
 * temporary directory named after it when the `postgres` user cannot reach `dir`, as under a
 * `mktemp -d` clone), with the plants collection's `_id` indexed; stops both.
 */
export async function startFerretDbOnPostgres(
  binary: string,
  options: MongoServerOptions,
): Promise<MongoServer> {
  const postgres = await startPostgres({
    dir: reachableByServiceUser(join(options.dir, 'postgres')),
    port: await freePort(),
    logFile: join(dirname(options.logFile), 'postgres.log'),
  });
  try {
    const ferretDb = await startFerretDb(binary, options, {
      handler: 'postgresql',
      url: postgres.url,
    });
    const plantsTable = await indexPlantLookups(ferretDb.uri, postgres);
    return {
      uri: ferretDb.uri,
      process: ferretDb.process,
      backend: postgres.process,
      settle: () => {
        postgres.sql(`VACUUM (ANALYZE) ${plantsTable}`);
        postgres.sql('CHECKPOINT');
        return Promise.resolve();
      },
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
