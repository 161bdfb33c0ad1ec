import { randomUUID } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect, onTestFinished, vi } from 'vitest';
import { startGateway, type Gateway } from '#gateway/gateway.ts';
import type { GatewaySettings } from '#gateway/config.ts';
import { createLogger, type Logger } from '#shared/logger.ts';
import { PARTITIONS, startTestWriter, type RegisterCleanup, type WriterHarness } from './writer.ts';

import { SECOND_TOKEN, TOKEN } from '../clients/token.ts';

export { SECOND_TOKEN, TOKEN };
export const BODY_LIMIT_BYTES = 1_024;

export type GatewayHarness = WriterHarness & TestGateway;

export interface TestGateway {
  readonly gateway: Gateway;
  post: (
    payload: string | Buffer,
    headers?: InjectOptions['headers'],
  ) => Promise<LightMyRequestResponse>;
  request: (options: InjectOptions) => Promise<LightMyRequestResponse>;
}

/** A ready gateway in front of a writer (or of nobody, with `writer: false`), all of this test's own. */
export async function startTestGateway({
  writer = true,
  ...options
}: { writer?: boolean } & GatewayTestOptions = {}): Promise<GatewayHarness> {
  const harness = await startTestWriter({
    writer,
    registerCleanup: options.registerCleanup ?? onTestFinished,
  });
  return { ...harness, ...(await attachGateway(harness, options)) };
}

/** Any setting of the gateway, beside the test's defaults below. */
type GatewayTestOptions = Partial<GatewaySettings> & {
  logger?: Logger;
  registerCleanup?: RegisterCleanup;
};

/**
 * A gateway's settings for a test: what it names, over the tests' defaults (the delay check off,
 * a 1 KiB body limit, bounds that no test reaches unless it sets them, admission fixed at
 * `maxInFlight`).
 */
export function testGatewaySettings(
  settings: Partial<GatewaySettings> & Pick<GatewaySettings, 'topics' | 'partitions'>,
): GatewaySettings {
  return {
    authTokens: [TOKEN],
    replyTimeoutMs: 15_000,
    publishLingerMaxMs: 8,
    maxInFlight: 1_000,
    createLatencyTargetMs: 0,
    maxEventLoopDelayMs: 0,
    shutdownDrainMs: 0,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    requestTimeoutMs: 10_000,
    headersTimeoutMs: 3_000,
    keepAliveTimeoutMs: 5_000,
    maxConnections: 1_000,
    refusalPacing: { perSecond: 50, delayMs: 1_000 },
    replyPartition: { configured: undefined, instanceId: randomUUID() },
    metricsOnApiPort: true,
    ...settings,
  };
}

/** Another ready gateway on the harness's topics, stopped when the test ends. */
export async function attachGateway(
  harness: WriterHarness,
  {
    logger = createLogger('gateway', 'warn'),
    registerCleanup = onTestFinished,
    ...settings
  }: GatewayTestOptions = {},
): Promise<TestGateway> {
  const gateway = await startGateway(
    testGatewaySettings({
      authTokens: [TOKEN, SECOND_TOKEN],
      topics: harness.topics,
      partitions: PARTITIONS,
      ...settings,
    }),
    { kafka: harness.kafka, logger },
  );
  registerCleanup(() => gateway.stop());
  // vi.waitFor rather than expect.poll: a suite may share one gateway from its beforeAll.
  await vi.waitFor(
    async () => {
      expect((await gateway.app.inject('/readyz')).statusCode).toBe(200);
    },
    { timeout: 15_000, interval: 50 },
  );
  return {
    gateway,
    request: (options) => gateway.app.inject(options),
    post: (payload, headers = {}) =>
      gateway.app.inject({
        method: 'POST',
        url: '/plants',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          ...headers,
        },
        payload,
      }),
  };
}

/** Commands on the create topic, from its high watermarks: definitive once a publish is acknowledged. */
export async function commandsPublished(
  gateway: Pick<WriterHarness, 'kafka' | 'topics'>,
): Promise<number> {
  const admin = gateway.kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(gateway.topics.create);
  await admin.disconnect();
  return offsets.reduce((sum, { high }) => sum + Number(high), 0);
}

/** Nothing reached the create topic, and a control request still does. */
export async function expectNothingPublished(gateway: GatewayHarness): Promise<void> {
  expect(await commandsPublished(gateway)).toBe(0);
  const control = await gateway.post('{"id": 424242, "name": "Control"}');
  expect(control.statusCode).toBe(200);
  expect(await commandsPublished(gateway)).toBe(1);
}
