import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'undici';
import { onTestFinished } from 'vitest';
import { TOKEN } from '../servers/gateway.ts';
import { metric, parseMetrics } from '../checks/metrics.ts';
import { aPlant } from './plants.ts';

export interface SteadyResult {
  sent: number;
  /** Creates answered 200, each with its latency. */
  okLatenciesMs: number[];
  /** What the others got: a status, or a socket error's code. */
  failures: string[];
  /** Connections the client had to open: 1 while the first is never closed under it. */
  connectionsOpened: number;
  /** `nodejs_heap_size_used_bytes` of each scrape, over the same connection. */
  heapUsedBytes: number[];
}

export interface SteadyClient {
  /** A GET over the client's own connection, between its creates. */
  get(path: string): Promise<Exchange>;
  stop(): Promise<SteadyResult>;
}

export interface Exchange {
  status: number | string;
  text: string;
}

/**
 * One connection kept alive to `url` (undici's `Client`: one socket, one request at a time);
 * `opened` counts the connections it had to open. Node's `http.Agent` is not used: on a busy
 * machine it destroyed a kept-alive socket as an answer arrived (`freeSocketOnReadGuard`),
 * and a test would count its own client's reconnections against the server.
 */
export function keptAliveConnection(url: string) {
  const client = new Client(url, { pipelining: 1 });
  onTestFinished(async () => {
    await client.destroy();
  });
  const connection = {
    opened: 0,
    send: async (method: 'POST' | 'GET', path: string, body?: string): Promise<Exchange> => {
      try {
        const answer = await client.request({
          method,
          path,
          body: body ?? null,
          headers:
            body === undefined
              ? {}
              : { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        });
        return { status: answer.statusCode, text: await answer.body.text() };
      } catch (error) {
        const { code, message } = error as NodeJS.ErrnoException;
        return { status: code ?? message, text: '' };
      }
    },
  };
  client.on('connect', () => {
    connection.opened += 1;
  });
  return connection;
}

/**
 * A client already connected when a flood begins: one keep-alive connection, on which it sends
 * `perSecond` creates one at a time and scrapes `/metrics` every second. Resolves once its first
 * create has been answered 200, so its connection is open before anything else happens.
 */
export async function startSteadyClient(url: string, perSecond: number): Promise<SteadyClient> {
  const connection = keptAliveConnection(url);
  const { send } = connection;
  const result: SteadyResult = {
    sent: 0,
    okLatenciesMs: [],
    failures: [],
    connectionsOpened: 0,
    heapUsedBytes: [],
  };
  const create = async () => {
    const started = performance.now();
    result.sent += 1;
    const { status } = await send('POST', '/plants', aPlant().body);
    if (status === 200) result.okLatenciesMs.push(performance.now() - started);
    else result.failures.push(String(status));
  };
  const scrape = async () => {
    const { status, text } = await send('GET', '/metrics');
    if (status === 200)
      result.heapUsedBytes.push(metric(parseMetrics(text), 'nodejs_heap_size_used_bytes'));
  };

  await create();
  if (result.failures.length > 0)
    throw new Error(`the first create got ${String(result.failures)}`);
  const stopped = new AbortController();
  const loop = (async () => {
    let nextScrape = performance.now();
    while (!stopped.signal.aborted) {
      const due = performance.now() + 1_000 / perSecond;
      if (performance.now() >= nextScrape) {
        nextScrape += 1_000;
        await scrape();
      } else await create();
      await sleep(Math.max(0, due - performance.now()));
    }
  })();
  return {
    get: (path) => send('GET', path),
    async stop() {
      stopped.abort();
      await loop;
      return { ...result, connectionsOpened: connection.opened };
    },
  };
}
