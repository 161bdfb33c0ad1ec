import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseEnv } from 'node:util';
import { TOPICS } from '#shared/contracts/kafka.ts';
import { ensureTopics } from '#shared/kafka/ensure-topics.ts';
import { STARTUP_TIMEOUT_MS, startUpWithin } from '#shared/start-up.ts';
import { kafkaClient } from '#shared/kafka/client.ts';
import { createLogger } from '#shared/logger.ts';
import { ensureCertificates, type Certificates } from './provision/certificates.ts';
import { applyAcls, PRINCIPALS, type Principal } from './kafka/acls.ts';
import { ADMIN, type KafkaSecurity } from './kafka/security.ts';
import type { KafkaServer } from './kafka/start-kafka.ts';
import type { StoreUser } from './store/mongo-server.ts';

const PARTITIONS = 3;

export interface SecuredStack {
  /** The CA both servers' certificate comes from: `<dir>/ca.pem`. */
  readonly caFile: string;
  /**
   * `<dir>/<principal>.env`: every variable that principal's service needs to connect, single-quoted
   * so that a shell (`set -a; . writer.env`), `node --env-file` and compose's `env_file` all read it.
   */
  readonly envFiles: Readonly<Record<Principal, string>>;
}

/** The store's one user: the writer, in its default database (MONGODB_DATABASE). */
const STORE_USER = { database: 'plantstore', name: 'writer' };
/** The store user's key among the passwords, beside the Kafka users'. */
const STORE_KEY = 'store';

export interface StackSecurity {
  kafka: KafkaSecurity;
  store: StoreUser;
}

/** The certificates and the users of `dir`, made on its first secured start and kept. */
export async function prepareSecurity(dir: string, logFile: string): Promise<StackSecurity> {
  const { [STORE_KEY]: storePassword = '', ...passwords } = await ensurePasswords(dir);
  return {
    kafka: { certificates: await ensureCertificates(dir, logFile), passwords },
    store: { ...STORE_USER, password: storePassword },
  };
}

async function ensurePasswords(dir: string): Promise<Record<string, string>> {
  const file = join(dir, 'tls', 'passwords.json');
  const users = [ADMIN, ...PRINCIPALS, STORE_KEY];
  if (existsSync(file)) {
    const kept = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    const missing = users.filter((user) => typeof kept[user] !== 'string');
    if (missing.length > 0)
      throw new Error(
        `${file} has no password for ${missing.join(', ')}: delete ${dir} to start afresh`,
      );
    return kept;
  }
  const passwords = Object.fromEntries(
    users.map((user) => [user, randomBytes(18).toString('base64url')]),
  );
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, JSON.stringify(passwords), { mode: 0o600 });
  return passwords;
}

/**
 * What a secured stack adds once its servers run: the topics (created by the brokers' own
 * principal, so no service needs the right to), the ACLs, and the principals' `.env` files.
 */
export async function secureStack(
  dir: string,
  kafka: KafkaServer,
  mongoUri: string,
  security: KafkaSecurity,
): Promise<SecuredStack> {
  const logger = createLogger('infra', 'warn');
  const setup = kafkaClient('plant-store-setup', kafka.admin, logger);
  await ensureTopics(setup, TOPICS, {
    partitions: PARTITIONS,
    startUp: startUpWithin(STARTUP_TIMEOUT_MS, logger),
  });
  await applyAcls(kafka.admin);
  const envFiles = Object.fromEntries(
    PRINCIPALS.map((principal) => [principal, join(dir, `${principal}.env`)]),
  ) as Record<Principal, string>;
  for (const principal of PRINCIPALS) {
    const password = security.passwords[principal] ?? '';
    await writeFile(
      envFiles[principal],
      envFile(principal, kafka.brokers, password, security.certificates, mongoUri),
      { mode: 0o600 },
    );
  }
  return { caFile: security.certificates.caFile, envFiles };
}

function envFile(
  principal: Principal,
  brokers: string,
  password: string,
  certificates: Certificates,
  mongoUri: string,
): string {
  const variables: Record<string, string> = {
    KAFKA_BROKERS: brokers,
    KAFKA_SSL: 'true',
    KAFKA_SSL_CA_FILE: certificates.caFile,
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: principal,
    KAFKA_SASL_PASSWORD: password,
    ...(principal === 'writer'
      ? { MONGODB_URI: withoutCaFile(mongoUri), MONGODB_TLS_CA_FILE: certificates.caFile }
      : {}),
  };
  return Object.entries(variables)
    .map(([name, value]) => `${name}='${value}'\n`)
    .join('');
}

/** The stack's own URI names the CA file; a service is given it as MONGODB_TLS_CA_FILE. */
function withoutCaFile(uri: string): string {
  const url = new URL(uri);
  url.searchParams.delete('tlsCAFile');
  return url.toString();
}

/** The variables with which the gateway and the writer reach Kafka and the store. */
export type ServiceConnections = Record<'gateway' | 'writer', Record<string, string>>;

/** A stack's: its principals' `.env` files when it is secured, else its brokers and store. */
export async function serviceConnections(stack: {
  kafkaBrokers: string;
  mongoUri: string;
  secured?: SecuredStack | undefined;
}): Promise<ServiceConnections> {
  if (stack.secured === undefined) {
    const plain = { KAFKA_BROKERS: stack.kafkaBrokers, MONGODB_URI: stack.mongoUri };
    return { gateway: plain, writer: plain };
  }
  return {
    gateway: await readEnvFile(stack.secured.envFiles.gateway),
    writer: await readEnvFile(stack.secured.envFiles.writer),
  };
}

/** The variables of a principal's `.env` file. */
export async function readEnvFile(path: string): Promise<Record<string, string>> {
  return parseEnv(await readFile(path, 'utf8')) as Record<string, string>;
}
