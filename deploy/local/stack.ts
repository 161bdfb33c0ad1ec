import { join } from 'node:path';
import { FERRETDB_CACHE_NAME, provisionFerretDb, startFerretDb } from './store/ferretdb.ts';
import { freeNodePorts, type KafkaNodePorts } from './kafka/node-ports.ts';
import { KAFKA_CACHE_NAME, provisionKafka } from './kafka/jars.ts';
import { startKafka, type KafkaServer } from './kafka/start-kafka.ts';
import type { MongoServer, MongoServerOptions } from './store/mongo-server.ts';
import { startMongod } from './store/mongod.ts';
import { findPostgresBinaries } from './store/postgres-binaries.ts';
import { postgresFolderOf, startFerretDbOnPostgres } from './store/ferretdb-on-postgres.ts';
import { OPENSSL } from './provision/tools.ts';
import { cacheRoot } from './provision/paths.ts';
import {
  prepareSecurity,
  secureStack,
  type SecuredStack,
  type StackSecurity,
} from './secure-stack.ts';
import { freePort } from './provision/ports.ts';
import { isProvisioned } from './provision/provision-cache.ts';
import { findOnPath, GO, JAVA, MAVEN, requireTools, type Tool } from './provision/tools.ts';

export interface LocalStackOptions {
  /** Data of both servers and their logs (`<dir>/logs`); reuse it to keep the data. */
  dir: string;
  /** Kafka nodes, each a broker and a controller: 1 by default, 3 for a replicated cluster. */
  brokers?: number;
  /** Ports on 127.0.0.1 (one entry per Kafka node); free ones are picked where none are given. */
  kafkaPorts?: readonly KafkaNodePorts[];
  mongoPort?: number;
  cache?: string;
  /**
   * FerretDB's backend when no `mongod` is on PATH: a local PostgreSQL by default (duplicates are
   * read by index), SQLite where PostgreSQL is absent (with a warning: it scans).
   */
  store?: 'sqlite' | 'postgresql' | undefined;
  /**
   * Kafka on SASL_SSL with SCRAM users and ACLs, the store on TLS, and one `<principal>.env` per
   * principal in `dir` (docs/security.md).
   */
  secure?: boolean;
}

export interface LocalStack {
  readonly kafkaBrokers: string;
  readonly mongoUri: string;
  /** Which MongoDB-protocol server runs: `mongod` or FerretDB. */
  readonly mongoServer: string;
  readonly logDir: string;
  /** The ports in use; pass them to a later start on the same `dir` to restart the same stack. */
  readonly ports: { kafkaPorts: readonly KafkaNodePorts[]; mongoPort: number };
  readonly kafka: KafkaServer;
  readonly mongo: MongoServer;
  /** Where a secured stack's CA and `.env` files are. */
  readonly secured?: SecuredStack;
  /** Stops one server and starts it again on the same data and port (fault drills). */
  restart(server: 'kafka' | 'mongo'): Promise<void>;
  stop(): Promise<void>;
}

/** Starts Kafka and a MongoDB-protocol server as local processes, provisioning them if needed. */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const brokers = brokerCountOf(options);
  const cache = options.cache ?? cacheRoot();
  const logDir = join(options.dir, 'logs');
  const mongod = findOnPath('mongod');
  requireStackTools(options, cache, mongod);
  const { security, libsDir, startMongo } = await provisionStack(options, {
    cache,
    logDir,
    mongod,
  });
  const ports = {
    kafkaPorts: options.kafkaPorts ?? (await freeNodePorts(brokers)),
    mongoPort: options.mongoPort ?? (await freePort()),
  };
  const kafkaOptions = {
    libsDir,
    dir: join(options.dir, 'kafka'),
    nodes: ports.kafkaPorts,
    logFile: join(logDir, 'kafka.log'),
    ...(security === undefined ? {} : { security: security.kafka }),
  };
  const mongoOptions = storeOptions(options.dir, logDir, ports.mongoPort, security);
  const started = await Promise.allSettled([startKafka(kafkaOptions), startMongo(mongoOptions)]);
  const [kafka, mongo] = started;
  if (kafka.status === 'fulfilled' && mongo.status === 'fulfilled') {
    const servers = { kafka: kafka.value, mongo: mongo.value };
    const secured =
      security === undefined
        ? undefined
        : await secureStack(options.dir, kafka.value, mongo.value.uri, security.kafka).catch(
            async (error: unknown) => {
              await Promise.all([kafka.value.stop(), mongo.value.stop()]);
              throw error;
            },
          );
    return runningStack(servers, {
      secured,
      logDir,
      ports,
      startAgain: { kafka: () => startKafka(kafkaOptions), mongo: () => startMongo(mongoOptions) },
    });
  }
  await Promise.all(
    started.flatMap((result) => (result.status === 'fulfilled' ? [result.value.stop()] : [])),
  );
  throw started.find((result) => result.status === 'rejected')?.reason;
}

function brokerCountOf(options: LocalStackOptions): number {
  const brokers = options.kafkaPorts?.length ?? options.brokers ?? 1;
  if (options.kafkaPorts !== undefined && brokers !== (options.brokers ?? brokers))
    throw new Error(
      `${String(options.kafkaPorts.length)} Kafka nodes' ports given for ${String(options.brokers)} brokers`,
    );
  return brokers;
}

/** Refuses a secured stack beside `mongod`, and a start without the tools its provisioning needs. */
function requireStackTools(options: LocalStackOptions, cache: string, mongod: string | null): void {
  if (options.secure === true && mongod !== null)
    throw new Error(
      `--secure runs the store as FerretDB with TLS; ${mongod} is on PATH, and the stack does not configure mongod's TLS. Remove it from PATH for a secured stack.`,
    );
  requireTools([
    ...toolsNeeded(cache, mongod !== null),
    ...(options.secure === true ? [OPENSSL] : []),
  ]);
}

type StartMongo = (mongoOptions: MongoServerOptions) => Promise<MongoServer>;

/** A secured stack's certificates and users, Kafka's jars, and how the store starts. */
async function provisionStack(
  options: LocalStackOptions,
  { cache, logDir, mongod }: { cache: string; logDir: string; mongod: string | null },
): Promise<{ security: StackSecurity | undefined; libsDir: string; startMongo: StartMongo }> {
  const store = options.store ?? defaultStore();
  const provisionLog = join(logDir, 'provision.log');
  const security =
    options.secure === true ? await prepareSecurity(options.dir, provisionLog) : undefined;
  const [libsDir, startMongo] = await Promise.all([
    provisionKafka(cache, provisionLog),
    mongod === null
      ? provisionFerretDb(cache, provisionLog).then(
          (binary) => (mongoOptions: MongoServerOptions) =>
            store === 'postgresql'
              ? startFerretDbOnPostgres(binary, mongoOptions)
              : startFerretDb(binary, mongoOptions),
        )
      : (mongoOptions: MongoServerOptions) => startMongod(mongod, mongoOptions),
  ]);
  return { security, libsDir, startMongo };
}

/** The store's options: on TLS with the stack's certificates, and its user, when secured. */
function storeOptions(
  dir: string,
  logDir: string,
  port: number,
  security: StackSecurity | undefined,
): MongoServerOptions {
  return {
    dir: join(dir, 'mongo'),
    port,
    logFile: join(logDir, 'mongo.log'),
    ...(security === undefined
      ? {}
      : {
          tls: {
            certFile: security.kafka.certificates.serverCertFile,
            keyFile: security.kafka.certificates.serverKeyFile,
            caFile: security.kafka.certificates.caFile,
          },
          user: security.store,
        }),
  };
}

/** The started stack; `restart` replaces a server in `servers`, which `kafka` and `mongo` read. */
function runningStack(
  servers: { kafka: KafkaServer; mongo: MongoServer },
  {
    secured,
    logDir,
    ports,
    startAgain,
  }: {
    secured: SecuredStack | undefined;
    logDir: string;
    ports: LocalStack['ports'];
    startAgain: { kafka: () => Promise<KafkaServer>; mongo: () => Promise<MongoServer> };
  },
): LocalStack {
  return {
    ...(secured === undefined ? {} : { secured }),
    kafkaBrokers: servers.kafka.brokers,
    mongoUri: servers.mongo.uri,
    mongoServer: servers.mongo.process.name,
    logDir,
    ports,
    get kafka() {
      return servers.kafka;
    },
    get mongo() {
      return servers.mongo;
    },
    async restart(server) {
      await servers[server].stop();
      if (server === 'kafka') servers.kafka = await startAgain.kafka();
      else servers.mongo = await startAgain.mongo();
    },
    stop: async () => {
      await Promise.all([servers.kafka.stop(), servers.mongo.stop()]);
    },
  };
}

const SQLITE_WARNING =
  'PostgreSQL server binaries not found: FerretDB keeps the plants in SQLite, which reads a plant ' +
  'by id with a scan of the whole collection, so every retry or conflict slows down as the store ' +
  'grows (about 3 s per read at 1,000,000 plants). Install PostgreSQL 15+ (Debian/Ubuntu: ' +
  'apt-get install postgresql) for indexed reads.';

function defaultStore(): 'sqlite' | 'postgresql' {
  const store = availableStore();
  if (store === 'sqlite') console.warn(SQLITE_WARNING);
  return store;
}

function availableStore(): 'sqlite' | 'postgresql' {
  return findPostgresBinaries() === null ? 'sqlite' : 'postgresql';
}

/**
 * The folder that will hold the store's data for a stack in `dir` started with `store`:
 * PostgreSQL's when FerretDB runs on it, wherever the relocation for the `postgres` user puts it,
 * else the store's own folder. A fault made on the store's disk is made there.
 */
export function storeDataFolder(dir: string, store?: 'sqlite' | 'postgresql'): string {
  const storeDir = join(dir, 'mongo');
  return findOnPath('mongod') === null && (store ?? availableStore()) === 'postgresql'
    ? postgresFolderOf(storeDir)
    : storeDir;
}

function toolsNeeded(cache: string, hasMongod: boolean): Tool[] {
  const tools = [JAVA];
  if (!isProvisioned(cache, KAFKA_CACHE_NAME)) tools.push(MAVEN);
  if (!hasMongod && !isProvisioned(cache, FERRETDB_CACHE_NAME)) tools.push(GO);
  return tools;
}
