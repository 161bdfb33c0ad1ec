import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileBodies } from '#test/fixtures/hostile-requests/bodies.ts';
import { hostileHttp } from '#test/fixtures/hostile-requests/http.ts';
import {
  BODY_LIMIT,
  type Case,
  type Expected,
  post,
  REQUEST_TIMEOUT_MS,
  withId,
} from '#test/fixtures/hostile-requests/requests.ts';
import { attachGateway, commandsPublished } from '../support/servers/gateway.ts';
import { exchange } from '../support/clients/raw-http.ts';
import { startTestWriter, type WriterHarness } from '../support/servers/writer.ts';

const CORPUS: Record<string, Case[]> = { ...hostileBodies, ...hostileHttp };

const answer = (expected: Expected) =>
  'error' in expected
    ? `${String(expected.status)}/${String(expected.error)}`
    : '200 with the Plant';

describe('POST /plants on a listening gateway, against malformed and hostile requests', () => {
  const cleanups: (() => Promise<void>)[] = [];
  const publishedIds = new Set<string>();
  let harness: WriterHarness;
  let port = 0;

  // One gateway for the whole corpus: starting a gateway and writer per case would take minutes.
  beforeAll(async () => {
    const registerCleanup = (cleanup: () => Promise<void>) => cleanups.unshift(cleanup);
    harness = await startTestWriter({ registerCleanup });
    const { gateway } = await attachGateway(harness, {
      registerCleanup,
      bodyLimitBytes: BODY_LIMIT,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gateway.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  describe.each(Object.entries(CORPUS))('%s', (_category, cases) => {
    it.each(
      cases.map(
        ([what, request, expected]) =>
          [`When ${what}, then ${answer(expected)}`, request, expected] as const,
      ),
    )('%s', async (_name, request, expected) => {
      const response = await exchange(port, request);

      expect(response, 'the gateway closed the connection without answering').toBeDefined();
      expect(response?.status).toBe(expected.status);
      expect(response?.headers['content-type']).toMatch(/^application\/json/);
      expect(response?.headers['set-cookie']).toBeUndefined();
      const body: unknown = JSON.parse(response?.body ?? '');
      if ('error' in expected) {
        expect(body).toEqual({
          error: expected.error,
          message: expect.stringMatching(/^[^\n]+$/) as string,
        });
      } else {
        expect(body).toEqual(expected.plant);
        publishedIds.add(expected.id);
      }
    });
  });

  // Runs after the corpus (vitest runs a file's tests in order); alone, it still holds.
  it('When every hostile request has been answered, then only the accepted ones were published and a valid create still answers 200', async () => {
    const control = await exchange(port, post(withId('424242')));

    expect(control?.status).toBe(200);
    const expectedIds = [...publishedIds, '424242'].sort();
    const commands = await harness.received(harness.topics.create, expectedIds.length);
    expect(commands.map(({ message }) => message.key?.toString()).sort()).toEqual(expectedIds);
    expect(await commandsPublished(harness)).toBe(expectedIds.length);
  });
});
