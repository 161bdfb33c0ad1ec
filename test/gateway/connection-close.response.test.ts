import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '#gateway/gateway.ts';
import { attachGateway, TOKEN } from '../support/servers/gateway.ts';
import {
  parseResponse,
  rawRequest,
  type RawHeaders,
  type RawResponse,
} from '../support/clients/raw-http.ts';
import { startTestWriter } from '../support/servers/writer.ts';

const HOST = 'gateway.test';
/** How long the server has to close the connection after its answer. */
const CLOSE_WITHIN_MS = 2_000;
/** How long a kept-alive connection is watched to stay open (Node keeps it 5 s by default). */
const KEPT_OPEN_MS = 500;

interface Observed extends RawResponse {
  /** The server ended the connection before the client did. */
  closedByServer: boolean;
}

/**
 * POST /plants with a valid token, without `connection: close`: the client keeps the connection
 * open as long as the server does, and reports whether the server closed it within `waitMs` of
 * its first complete answer.
 */
function postAndWatch(port: number, headers: RawHeaders, waitMs: number): Promise<Observed> {
  const body = Buffer.from('{"id": 1, "name": "Fern"}');
  const request = rawRequest(
    'POST /plants HTTP/1.1',
    {
      host: HOST,
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'content-length': String(body.length),
      ...headers,
    },
    body,
  );
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let closedByServer = false;
    let watching: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(watching);
      socket.destroy();
      const answer = parseResponse(received)?.response;
      if (answer === undefined) reject(new Error('the gateway closed without answering'));
      else resolve({ ...answer, closedByServer });
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (watching === undefined && parseResponse(received)?.complete === true) {
        watching = setTimeout(finish, waitMs);
      }
    });
    socket.on('end', () => {
      closedByServer = true;
      finish();
    });
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.write(request);
  });
}

describe('POST /plants on a listening gateway, over a connection the client keeps open', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let port = 0;

  beforeAll(async () => {
    const registerCleanup = (cleanup: () => Promise<void>) => cleanups.unshift(cleanup);
    // No writer: a refused request never reaches one, and the control needs no answer of 200.
    const harness = await startTestWriter({ writer: false, registerCleanup });
    const { gateway } = await attachGateway(harness, { registerCleanup });
    await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gateway.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it.each([
    ['Host is missing', { host: undefined }],
    ['Host comes twice', { host: [HOST, 'evil.test'] }],
    // Refused by Node's parser rather than the Host check: answered by answerClientError.
    ['Content-Length and Transfer-Encoding are both sent', { 'transfer-encoding': 'chunked' }],
  ])(
    'When %s, then the answer is 400/4002 with connection: close and the gateway closes the connection',
    async (_what, headers) => {
      const answer = await postAndWatch(port, headers, CLOSE_WITHIN_MS);

      expect(answer.status).toBe(400);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body)).toEqual({
        error: 4002,
        message: expect.stringMatching(/^[^\n]+$/) as string,
      });
      expect(answer.headers.connection).toBe('close');
      expect(answer.closedByServer, 'the gateway left the connection open').toBe(true);
    },
  );

  it('When a request is refused for something else (no token), then the connection stays open', async () => {
    const answer = await postAndWatch(port, { authorization: undefined }, KEPT_OPEN_MS);

    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('keep-alive');
    expect(answer.closedByServer).toBe(false);
  });
});

/** Connects and sends nothing: what the server answers, and how long it kept the connection. */
function stayQuiet(
  port: number,
): Promise<{ answer: RawResponse | undefined; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      resolve({
        answer: parseResponse(received)?.response,
        closedAfterMs: performance.now() - started,
      });
    });
  });
}

describe('A listening gateway’s idle connections', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let port = 0;
  const TIMEOUT_MS = 500;

  beforeAll(async () => {
    const registerCleanup = (cleanup: () => Promise<void>) => cleanups.unshift(cleanup);
    const harness = await startTestWriter({ writer: false, registerCleanup });
    const { gateway } = await attachGateway(harness, {
      registerCleanup,
      headersTimeoutMs: TIMEOUT_MS,
      keepAliveTimeoutMs: TIMEOUT_MS,
      requestTimeoutMs: 10_000,
    });
    await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gateway.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  it('When a connection sends nothing, then it is answered 408/4080 and closed after HEADERS_TIMEOUT_MS, long before REQUEST_TIMEOUT_MS', async () => {
    const { answer, closedAfterMs } = await stayQuiet(port);

    expect(answer?.status).toBe(408);
    expect(JSON.parse(answer?.body ?? '')).toEqual({
      error: 4080,
      message: expect.stringMatching(/^[^\n]+$/) as string,
    });
    expect(closedAfterMs).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(closedAfterMs).toBeLessThan(5_000);
  });

  it('When a kept-alive connection stays idle after its answer, then the gateway closes it after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const answer = await postAndWatch(port, { authorization: undefined }, 3_000);

    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('keep-alive');
    expect(answer.closedByServer, 'the gateway kept the idle connection open').toBe(true);
  });
});

describe('A listening gateway refusing tokens beyond its budget', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let gateway: Gateway;
  let port = 0;
  const DELAY_MS = 300;

  beforeAll(async () => {
    const registerCleanup = (cleanup: () => Promise<void>) => cleanups.unshift(cleanup);
    const harness = await startTestWriter({ writer: false, registerCleanup });
    ({ gateway } = await attachGateway(harness, {
      registerCleanup,
      refusalPacing: { perSecond: 0, delayMs: DELAY_MS },
    }));
    await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    port = (gateway.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  const delayed = async () =>
    (await gateway.app.metrics.refusalsDelayed.get()).values[0]?.value ?? 0;

  it('When a token is refused beyond the budget, then its 401 comes after the delay with connection: close, and the gateway closes the connection', async () => {
    const before = await delayed();
    const started = performance.now();
    const answer = await postAndWatch(
      port,
      { authorization: 'Bearer not-a-token' },
      CLOSE_WITHIN_MS,
    );

    expect(performance.now() - started).toBeGreaterThanOrEqual(DELAY_MS - 10);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 4010 });
    expect(answer.headers.connection).toBe('close');
    expect(answer.closedByServer).toBe(true);
    expect(await delayed()).toBe(before + 1);
  });

  it('When a client pipelines many requests behind a refusal answered late, then only that one waits for the delay and the connection is closed', async () => {
    const before = await delayed();
    const one = rawRequest(
      'POST /plants HTTP/1.1',
      {
        host: HOST,
        authorization: 'Bearer not-a-token',
        'content-type': 'application/json',
        'content-length': '2',
      },
      Buffer.from('{}'),
    );
    const closed = new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        resolve(received);
      });
      socket.write(Buffer.concat(Array.from({ length: 2_000 }, () => one)));
    });
    const received = await closed;

    expect(received.startsWith('HTTP/1.1 401 ')).toBe(true);
    expect(received).toContain('"error":4010');
    expect(await delayed()).toBe(before + 1);
  });
});
