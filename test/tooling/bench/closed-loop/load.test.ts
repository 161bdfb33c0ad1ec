import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadPlants, tickLine, type LoadTick } from '#bench/closed-loop/load.ts';

/** An HTTP server answering POST /plants with 200, or 400 for every id `refused` picks. */
async function plantServer(refused: (id: bigint) => boolean = () => false) {
  const ids: bigint[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const id = BigInt(/"id":(\d+)/.exec(body)?.[1] ?? '0');
      ids.push(id);
      response.writeHead(refused(id) ? 400 : 200, { 'content-type': 'application/json' });
      response.end('{}');
    });
  });
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${String(port)}`, ids };
}

describe('loadPlants', () => {
  it('When it sends a fixed number of creates from a worker thread, then every one is counted, on fresh ids, with its failures', async () => {
    const { url, ids } = await plantServer((id) => id % 10n === 0n);

    const result = await loadPlants({
      urls: [url],
      token: 't',
      connections: 2,
      amount: 100,
      firstId: 1n,
    });

    expect(result).toMatchObject({
      requests: 100,
      non2xx: 10,
      errors: 0,
      failures: { 400: 10 },
    });
    expect(result.requestsPerSecond).toBeGreaterThan(0);
    expect(result.p50).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(100);
    expect(ids.every((id) => id >= 1n && id <= 100n)).toBe(true);
  });

  it('When it retries stored plants, then every id is picked among them', async () => {
    const { url, ids } = await plantServer();

    await loadPlants({
      urls: [url],
      token: 't',
      connections: 2,
      amount: 50,
      firstId: 1n,
      retryOf: { first: 1_000n, count: 5 },
    });

    expect(ids).toHaveLength(50);
    expect(ids.every((id) => id >= 1_000n && id < 1_005n)).toBe(true);
  });

  it('When it runs for seconds, then it tells each second how it goes: answers in that second, failures and p99 so far', async () => {
    const { url } = await plantServer((id) => id % 10n === 0n);
    const ticks: LoadTick[] = [];

    const result = await loadPlants(
      { urls: [url], token: 't', connections: 2, duration: 2, firstId: 1n },
      (tick) => ticks.push(tick),
    );

    expect(ticks.length).toBeGreaterThanOrEqual(1);
    const [first] = ticks as [LoadTick];
    expect(first.elapsedMs).toBeGreaterThanOrEqual(900);
    expect(first.lastSecond).toBeGreaterThan(0);
    expect(first.failed).toBeGreaterThan(0);
    expect(first.failed).toBeLessThanOrEqual(result.non2xx);
    expect(first.p99Ms).toBeGreaterThan(0);
    expect(first.p99Ms).toBeLessThan(1_000);
    expect(
      tickLine('e2e measured', 35, {
        elapsedMs: 12_400,
        lastSecond: 1_234,
        second: { answered: 1_234, failed: 1, p50: 4.2, p99: 20.1 },
        failed: 2,
        p99Ms: 23.46,
      }),
    ).toBe('  e2e measured: 12 s of 35 s, 1234 req/s, p99 so far 23.5 ms, 2 failed');
  });
});
