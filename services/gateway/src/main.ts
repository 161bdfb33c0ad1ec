// `npm run start:gateway`: one gateway process against KAFKA_BROKERS.
import { configOrExit, exitOnConfigError } from '#shared/config.ts';
import { checkKafkaAccess } from '#shared/kafka/access.ts';
import { kafkaClient } from '#shared/kafka/client.ts';
import { connectionCap, logConnectionCap } from '#shared/http/limits.ts';
import { createLogger } from '#shared/logger.ts';
import { exitOnSignalOrFault } from '#shared/shutdown.ts';
import { exitOnStartUpError, startUpWithin } from '#shared/start-up.ts';
import { startTracing } from '#shared/tracing/sdk.ts';
import { gatewaySettingsOf, readGatewayConfig } from './config.ts';
import { startGateway } from './gateway.ts';
import { startOpsPort } from './health/ops-port.ts';

const config = configOrExit(() => readGatewayConfig());
/**
 * Connections the kernel holds until the gateway accepts them (capped by `net.core.somaxconn`),
 * beyond Node's 511: a burst of new clients beyond the queue has its SYNs dropped and waits a
 * second for its retransmit, the slowest answers the overload scenario measured.
 */
const LISTEN_BACKLOG = 4_096;
const logger = createLogger('gateway', config.LOG_LEVEL);
// Before anything is reached: a mistake in the tracing variables is a configuration error too.
const tracing = await startTracing('plant-store-gateway', logger);
await checkKafkaAccess(config.kafka).catch(exitOnConfigError);
const cap = connectionCap(config.MAX_CONNECTIONS, config.BODY_LIMIT_BYTES);
logConnectionCap(cap, logger);
const gateway = await startGateway(gatewaySettingsOf(config, cap), {
  kafka: kafkaClient('plant-store-gateway', config.kafka, logger),
  logger,
  startUp: startUpWithin(config.STARTUP_TIMEOUT_MS, logger),
}).catch(exitOnStartUpError(logger));
await gateway.app.listen({ port: config.PORT, host: config.HOST, backlog: LISTEN_BACKLOG });
const metricsPort =
  config.METRICS_PORT === undefined
    ? undefined
    : await startOpsPort(gateway.app, {
        host: config.HOST,
        port: config.METRICS_PORT,
        logger,
        limits: {
          headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
          keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
        },
      });

exitOnSignalOrFault({
  logger,
  stopping: 'stopping: refusing new requests, answering those in flight',
  // The metrics port outlives the drain, so that Prometheus sees it to the end.
  stop: async () => {
    await gateway.stop();
    await Promise.all([metricsPort?.close(), tracing.shutdown()]);
  },
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
});
