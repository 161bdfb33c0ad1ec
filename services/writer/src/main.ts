// `npm run start:writer`: one writer process against KAFKA_BROKERS and MONGODB_URI.
import { MongoClient } from 'mongodb';
import { configOrExit, topicsOf } from '../../../shared/config.ts';
import { kafkaClient } from '../../../shared/kafka-client.ts';
import { createLogger } from '../../../shared/logger.ts';
import { exitOnSignal } from '../../../shared/shutdown.ts';
import { startTracing } from '../../../shared/tracing-sdk.ts';
import { readWriterConfig } from './config.ts';
import { startHealthServer } from './health-server.ts';
import { startWriter } from './writer.ts';

const config = configOrExit(() => readWriterConfig());
const logger = createLogger('writer', config.LOG_LEVEL);
const tracing = await startTracing('plant-store-writer', logger);
// A store that is down fails an insert within 5 s (the driver waits 30 s by default); the batch
// is then retried every 0.5 s rather than failing after half a minute and restarting the consumer.
// With the default 10 s heartbeat, the driver's monitor of a restarted FerretDB stayed on
// "connection closed" for good in most runs (every insert failed for minutes, the writer's
// partitions unanswered); with a 2 s heartbeat it recovered in every run (docs/decisions.md).
const mongo = new MongoClient(config.MONGODB_URI, {
  useBigInt64: true,
  serverSelectionTimeoutMS: 5_000,
  heartbeatFrequencyMS: 2_000,
});
const kafka = kafkaClient('plant-store-writer', config.KAFKA_BROKERS);

await mongo.connect();
const writer = await startWriter({
  kafka,
  db: mongo.db(config.MONGODB_DATABASE),
  logger,
  partitions: config.KAFKA_PARTITIONS,
  topics: topicsOf(config),
  groupId: config.KAFKA_WRITER_GROUP,
});
const health = await startHealthServer(writer, {
  host: config.HOST,
  port: config.METRICS_PORT,
  logger,
});

exitOnSignal({
  logger,
  stopping: 'stopping: finishing the batch in hand, committing, leaving the group',
  stop: async () => {
    await writer.stop();
    await Promise.all([mongo.close(), health.close(), tracing.shutdown()]);
  },
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
