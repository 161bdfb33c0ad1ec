// `npm run start:writer`: one writer process against KAFKA_BROKERS and MONGODB_URI.
import { configOrExit, exitOnConfigError, topicsOf } from '../../../shared/config.ts';
import { checkKafkaAccess } from '../../../shared/kafka-access.ts';
import { kafkaClient } from '../../../shared/kafka-client.ts';
import { createLogger } from '../../../shared/logger.ts';
import { exitOnSignalOrFault } from '../../../shared/shutdown.ts';
import { exitOnStartUpError, startUpWithin } from '../../../shared/start-up.ts';
import { startTracing } from '../../../shared/tracing-sdk.ts';
import { readWriterConfig } from './config.ts';
import { startHealthServer } from './health/health-server.ts';
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
  logger,
  partitions: config.KAFKA_PARTITIONS,
  topics: topicsOf(config),
  groupId: config.KAFKA_WRITER_GROUP,
  sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
  startUp,
}).catch(exitOnStartUpError(logger));
const health = await startHealthServer(writer, {
  host: config.HOST,
  port: config.METRICS_PORT,
  logger,
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
