import type { TestServers } from './test-servers.ts';

const RUNTIME_TIMEOUT_MS = 3_000;
const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.9.0';
const KAFKA_PLAINTEXT_PORT = 9093;
const MONGODB_IMAGE = 'mongo:8.0';

/**
 * Whether a container runtime answers. Without a daemon testcontainers fails within
 * milliseconds, but a hung daemon socket would make it wait forever, hence the race.
 */
export async function containerRuntimeAnswers(timeoutMs = RUNTIME_TIMEOUT_MS): Promise<boolean> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => {
      resolve(false);
    }, timeoutMs);
  });
  try {
    return await Promise.race([getContainerRuntimeClient().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export async function startContainers(): Promise<TestServers> {
  const [{ KafkaContainer }, { MongoDBContainer }] = await Promise.all([
    import('@testcontainers/kafka'),
    import('@testcontainers/mongodb'),
  ]);
  const [kafka, mongo] = await Promise.all([
    new KafkaContainer(KAFKA_IMAGE).withKraft().start(),
    new MongoDBContainer(MONGODB_IMAGE).start(),
  ]);
  return {
    kafkaBrokers: `${kafka.getHost()}:${kafka.getMappedPort(KAFKA_PLAINTEXT_PORT)}`,
    mongoUri: `${mongo.getConnectionString()}?directConnection=true`,
    source: `testcontainers (${KAFKA_IMAGE}, ${MONGODB_IMAGE})`,
    logDir: null,
    stop: async () => {
      await Promise.all([kafka.stop(), mongo.stop()]);
    },
  };
}
