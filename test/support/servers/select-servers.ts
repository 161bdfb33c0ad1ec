import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stateRoot } from '#local/provision/paths.ts';
import { startLocalStack } from '#local/stack.ts';
import { containerRuntimeAnswers, startContainers } from './containers.ts';
import type { TestServers } from './test-servers.ts';

export interface ServerSources {
  containerRuntimeAnswers(): Promise<boolean>;
  startContainers(): Promise<TestServers>;
  startLocal(): Promise<TestServers>;
}

const defaultSources: ServerSources = { containerRuntimeAnswers, startContainers, startLocal };

/**
 * KAFKA_BROKERS and MONGODB_URI when set, else testcontainers when a container runtime answers,
 * else Kafka and a MongoDB-protocol server as local processes on free ports.
 */
export async function selectServers(
  env: NodeJS.ProcessEnv = process.env,
  sources: ServerSources = defaultSources,
): Promise<TestServers> {
  const { KAFKA_BROKERS: kafkaBrokers, MONGODB_URI: mongoUri } = env;
  if (kafkaBrokers && mongoUri) {
    return {
      kafkaBrokers,
      mongoUri,
      source: 'KAFKA_BROKERS and MONGODB_URI',
      logDir: null,
      stop: async () => {},
    };
  }
  if (kafkaBrokers || mongoUri) {
    throw new Error(
      'Set both KAFKA_BROKERS and MONGODB_URI to test against running servers, or neither.',
    );
  }
  if (await sources.containerRuntimeAnswers()) return sources.startContainers();
  return sources.startLocal();
}

const KEPT_RUNS = 5;

async function startLocal(): Promise<TestServers> {
  const runs = join(stateRoot, 'test-runs');
  pruneOldRuns(runs);
  const dir = join(runs, `${new Date().toISOString().replaceAll(':', '-')}-${process.pid}`);
  const stack = await startLocalStack({ dir });
  return {
    kafkaBrokers: stack.kafkaBrokers,
    mongoUri: stack.mongoUri,
    source: `local processes (Kafka, ${stack.mongoServer})`,
    logDir: stack.logDir,
    stop: () => stack.stop(),
  };
}

/** Every run gets fresh data; the last few are kept so that their logs can be read. */
function pruneOldRuns(runs: string): void {
  mkdirSync(runs, { recursive: true });
  const old = readdirSync(runs)
    .sort()
    .slice(0, -KEPT_RUNS + 1);
  for (const run of old) rmSync(join(runs, run), { recursive: true, force: true });
}
