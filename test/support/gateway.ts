import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect, onTestFinished } from 'vitest';
import { startGateway } from '../../services/gateway/src/gateway.ts';
import { createLogger } from '../../shared/logger.ts';
import { PARTITIONS, startTestWriter, type WriterHarness } from './writer.ts';

export const TOKEN = 'test-token-6a1f';
export const BODY_LIMIT_BYTES = 1_024;

export interface GatewayHarness extends WriterHarness {
  post(
    payload: string | Buffer,
    headers?: InjectOptions['headers'],
  ): Promise<LightMyRequestResponse>;
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
}

/** A ready gateway in front of a writer (or of nobody, with `writer: false`), all of this test's own. */
export async function startTestGateway({
  writer = true,
  replyTimeoutMs = 15_000,
} = {}): Promise<GatewayHarness> {
  const harness = await startTestWriter({ writer });
  const gateway = await startGateway({
    kafka: harness.kafka,
    logger: createLogger('gateway', 'warn'),
    authTokens: [TOKEN, 'second-token'],
    replyTimeoutMs,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    topics: harness.topics,
    partitions: PARTITIONS,
  });
  onTestFinished(() => gateway.stop());
  await expect
    .poll(async () => (await gateway.app.inject('/readyz')).statusCode, { timeout: 15_000 })
    .toBe(200);
  return {
    ...harness,
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
