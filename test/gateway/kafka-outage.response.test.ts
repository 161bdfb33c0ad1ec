import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freeNodePorts } from '#local/kafka/node-ports.ts';
import { provisionKafka } from '#local/kafka/jars.ts';
import { startKafka } from '#local/kafka/start-kafka.ts';
import { cacheRoot } from '#local/provision/paths.ts';
import { startGateway } from '#gateway/gateway.ts';
import { TOPICS } from '#shared/contracts/kafka.ts';
import { createLogger } from '#shared/logger.ts';
import { testGatewaySettings, TOKEN } from '../support/servers/gateway.ts';
import { localServersUnavailable, temporaryDirectory } from '../support/servers/local-servers.ts';

describe.skipIf(localServersUnavailable)('POST /plants while Kafka is down', () => {
  it('When the broker is gone, then 503/5030 with Retry-After instead of waiting for the reply deadline', async () => {
    const dir = await temporaryDirectory();
    const libsDir = await provisionKafka(cacheRoot(), join(dir, 'provision.log'));
    const kafkaServer = await startKafka({
      libsDir,
      dir: join(dir, 'kafka'),
      nodes: await freeNodePorts(1),
      logFile: join(dir, 'kafka.log'),
    });
    onTestFinished(() => kafkaServer.stop());
    const gateway = await startGateway(
      testGatewaySettings({
        authTokens: [TOKEN],
        replyTimeoutMs: 60_000,
        maxInFlight: 100,
        bodyLimitBytes: 1_024,
        topics: TOPICS,
        partitions: 1,
        replyPartition: { configured: undefined, instanceId: 'kafka-outage' },
      }),
      {
        kafka: new Kafka({
          brokers: [kafkaServer.brokers],
          logLevel: logLevel.NOTHING,
          retry: { retries: 1 },
        }),
        logger: createLogger('gateway', 'silent'),
      },
    );
    onTestFinished(() => gateway.stop());

    await kafkaServer.stop();
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/plants',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: '{"id": 1, "name": "Fern"}',
    });

    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.json()).toEqual({
      error: 5030,
      message: 'Kafka cannot take the command now; retry shortly',
    });
  });
});
