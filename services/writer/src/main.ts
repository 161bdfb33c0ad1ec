// `npm run start:writer`: one writer process against KAFKA_BROKERS and MONGODB_URI.
import { configOrExit, exitOnConfigError } from '#shared/config.ts';
import { topicsOf } from '#shared/service-settings.ts';
import { checkKafkaAccess } from '#shared/kafka/access.ts';
import { kafkaClient } from '#shared/kafka/client.ts';
import { connectionCap, logConnectionCap } from '#shared/http/limits.ts';
import { createLogger } from '#shared/logger.ts';
import { exitOnSignalOrFault } from '#shared/shutdown.ts';
import { exitOnStartUpError, startUpWithin } from '#shared/start-up.ts';
import { startTracing } from '#shared/tracing/sdk.ts';
import { readWriterConfig } from './config.ts';
import { startOpsPort } from './health/ops-port.ts';
import { connectStore, storeErrorIsRetriable } from './store/store-client.ts';
import { startWriter } from './writer.ts';

const config = configOrExit(() => readWriterConfig());
const logger = createLogger('writer', config.LOG_LEVEL);
// Before anything is reached: a mistake in the tracing variables is a configuration error too.
const tracing = await startTracing('plant-store-writer', logger);
await checkKafkaAccess(config.kafka).catch(exitOnConfigError);
const kafka = kafkaClient('plant-store-writer', config.kafka, logger);
const startUp = startUpWithin(config.STARTUP_TIMEOUT_MS, logger);

const store = await startUp
  .retry(
    `the store at MONGODB_URI (database ${config.MONGODB_DATABASE})`,
    () =>
      connectStore(config.MONGODB_URI, logger, {
        database: config.MONGODB_DATABASE,
        tlsCAFile: config.MONGODB_TLS_CA_FILE,
      }),
    storeErrorIsRetriable,
  )
  .catch(exitOnStartUpError(logger));
const writer = await startWriter({
  kafka,
  db: store.client.db(config.MONGODB_DATABASE),
  storeClient: store.client,
  logger,
  partitions: config.KAFKA_PARTITIONS,
  topics: topicsOf(config),
  groupId: config.KAFKA_WRITER_GROUP,
  sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
  answerLingerMaxMs: config.ANSWER_LINGER_MAX_MS,
  startUp,
}).catch(exitOnStartUpError(logger));
// Its requests have no body: what one connection can hold is its head.
const cap = connectionCap(config.MAX_CONNECTIONS, 0);
logConnectionCap(cap, logger);
const health = await startOpsPort(writer, {
  host: config.HOST,
  port: config.METRICS_PORT,
  logger,
  limits: {
    maxConnections: cap.maxConnections,
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
  },
});

exitOnSignalOrFault({
  logger,
  stopping: 'stopping: finishing the batch in hand, committing, leaving the group',
  stop: async () => {
    await writer.stop();
    await Promise.all([store.close(), health.close(), tracing.shutdown()]);
  },
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
