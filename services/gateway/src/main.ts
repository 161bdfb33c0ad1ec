// `npm run start:gateway`: one gateway process against KAFKA_BROKERS.
import { configOrExit, exitOnConfigError, topicsOf } from '../../../shared/config.ts';
import { checkKafkaAccess } from '../../../shared/kafka-access.ts';
import { kafkaClient } from '../../../shared/kafka-client.ts';
import { createLogger } from '../../../shared/logger.ts';
import { exitOnSignalOrFault } from '../../../shared/shutdown.ts';
import { startTracing } from '../../../shared/tracing-sdk.ts';
import { readGatewayConfig } from './config.ts';
import { startGateway } from './gateway.ts';

const config = configOrExit(() => readGatewayConfig());
await checkKafkaAccess(config.kafka).catch(exitOnConfigError);
const logger = createLogger('gateway', config.LOG_LEVEL);
const tracing = await startTracing('plant-store-gateway', logger);
const gateway = await startGateway({
  kafka: kafkaClient('plant-store-gateway', config.kafka, logger),
  logger,
  authTokens: config.authTokens,
  ...(config.jwt === undefined ? {} : { jwt: config.jwt }),
  replyTimeoutMs: config.REPLY_TIMEOUT_MS,
  maxInFlight: config.MAX_IN_FLIGHT,
  maxEventLoopDelayMs: config.MAX_EVENT_LOOP_DELAY_MS,
  shutdownDrainMs: config.SHUTDOWN_DRAIN_MS,
  bodyLimitBytes: config.BODY_LIMIT_BYTES,
  requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
  ...(config.RATE_LIMIT_PER_MINUTE === undefined
    ? {}
    : { rateLimitPerMinute: config.RATE_LIMIT_PER_MINUTE }),
  partitions: config.KAFKA_PARTITIONS,
  topics: topicsOf(config),
});
await gateway.app.listen({ port: config.PORT, host: config.HOST });

exitOnSignalOrFault({
  logger,
  stopping: 'stopping: refusing new requests, answering those in flight',
  stop: () => gateway.stop().then(() => tracing.shutdown()),
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
