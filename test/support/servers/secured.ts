import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kafka, logLevel, type Consumer, type KafkaMessage } from 'kafkajs';
import { MongoClient } from 'mongodb';
import { inject, onTestFinished } from 'vitest';
import type { Principal } from '#local/kafka/acls.ts';
import { readEnvFile } from '#local/secure-stack.ts';
import { kafkaConnectionFromEnv } from '#shared/service-settings.ts';
import type { KafkaConnection } from '#shared/kafka/connection.ts';
import type { SecuredStackContext } from '../../secured/global-setup.ts';
import { runEntryPoint, type EntryPointExit } from '../processes/entry-point.ts';
import { securedStackUnavailable } from './local-servers.ts';
import { aPlant, type TestPlant } from '../clients/plants.ts';

const provided = inject('securedStack');

/** Why the secured tests cannot run here, or null. */
export const securedUnavailable = provided === null ? securedStackUnavailable : null;

export function securedStack(): SecuredStackContext {
  if (provided === null) throw new Error('no secured stack: the tests should have been skipped');
  return provided;
}

/** The variables of a principal's `.env` file, as its service would read them. */
export function principalEnv(principal: Principal): Promise<Record<string, string>> {
  return readEnvFile(join(securedStack().dir, `${principal}.env`));
}

/**
 * A kafkajs client as `principal`, its settings read like a service's (with `overrides`), giving
 * up after one retry so that a refusal shows at once. Disconnected when the test ends.
 */
export async function clientAs(
  principal: Principal,
  overrides: Record<string, string | undefined> = {},
): Promise<Kafka> {
  return kafkaFor(kafkaConnectionFromEnv({ ...(await principalEnv(principal)), ...overrides }));
}

export function adminClient(): Kafka {
  return kafkaFor(securedStack().admin);
}

function kafkaFor(connection: KafkaConnection): Kafka {
  return new Kafka({
    clientId: 'secured-tests',
    ...connection,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 3_000,
    retry: { retries: 1, initialRetryTime: 100 },
  });
}

/** A topic only the brokers' super user created, deleted when the test ends. */
export async function createTopicAsAdmin(topic: string): Promise<void> {
  const admin = adminClient().admin();
  await admin.connect();
  onTestFinished(async () => {
    try {
      await admin.deleteTopics({ topics: [topic] });
    } finally {
      await admin.disconnect();
    }
  });
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
}

/** Everything on `topic` from its start that `match` accepts, read until one turns up. */
export async function firstMessage(
  kafka: Kafka,
  topic: string,
  groupId: string,
  match: (message: KafkaMessage) => boolean,
  timeoutMs = 20_000,
): Promise<KafkaMessage> {
  const consumer = kafka.consumer({ groupId });
  onTestFinished(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  return new Promise<KafkaMessage>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`nothing matching on ${topic} within ${String(timeoutMs)} ms`));
    }, timeoutMs);
    void consumer.run({
      eachMessage: ({ message }) => {
        if (match(message)) {
          clearTimeout(timer);
          resolve(message);
        }
        return Promise.resolve();
      },
    });
  });
}

/**
 * The error a consumer meets reading `topic` in `groupId`: from subscribing, or its crash. Fails
 * when the broker lets it fetch instead.
 */
export async function readRefusal(kafka: Kafka, topic: string, groupId: string): Promise<Error> {
  const consumer: Consumer = kafka.consumer({ groupId, retry: { retries: 0 } });
  onTestFinished(() => consumer.disconnect());
  await consumer.connect();
  const crashed = new Promise<Error>((resolve, reject) => {
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      resolve(payload.error);
    });
    consumer.on(consumer.events.FETCH, () => {
      reject(new Error(`the broker let the client read ${topic}`));
    });
  });
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: () => Promise.resolve() });
  } catch (error) {
    return error as Error;
  }
  return crashed;
}

/** The stored plants of the secured store, over TLS trusting the stack's CA. */
export async function securedPlants() {
  const env = await principalEnv('writer');
  const client = new MongoClient(env.MONGODB_URI ?? '', {
    useBigInt64: true,
    tls: true,
    tlsCAFile: env.MONGODB_TLS_CA_FILE ?? '',
  });
  onTestFinished(() => client.close());
  return client.db('plantstore').collection<{ _id: bigint; name: string }>('plants');
}

/** A plant whose id no other test of the shared secured store uses. */
export function uniquePlant(name: string): TestPlant {
  return aPlant({ id: BigInt(Date.now()) * 1_000_000n + BigInt(randomInt(1_000_000)), name });
}

/**
 * Runs an entry point of the project as `principal`, with its `.env` file and `overrides`, to its
 * end (at most 20 s).
 */
export async function runAs(
  principal: Principal,
  script: string,
  args: readonly string[],
  overrides: Record<string, string> = {},
): Promise<EntryPointExit> {
  const env = {
    ...process.env,
    ...(await principalEnv(principal)),
    AUTH_TOKENS: 'start-up-check',
    PORT: '0',
    METRICS_PORT: '0',
    ...overrides,
  };
  return runEntryPoint(script, args, env);
}

/** What a server process wrote to its log so far. */
export function logOf(file: string): string {
  return readFileSync(file, 'utf8');
}
