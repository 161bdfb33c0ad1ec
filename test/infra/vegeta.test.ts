import { createServer } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { rateStep } from '#bench/open-loop/rate-step.ts';
import { attack, provisionVegeta } from '#local/load/vegeta.ts';
import { plantBody } from '#bench/closed-loop/load.ts';
import { reapedChildrenCpuSeconds } from '#bench/probes/process-stats.ts';
import { cacheRoot } from '#local/provision/paths.ts';
import { listenForTest } from '../support/servers/loopback-server.ts';

const RATE = 100;
const SECONDS = 3;
/** The server holds every answer due between these times (ms from the first request) until the end. */
const STALL = { from: 1_000, to: 1_300 };

let vegeta: string;
beforeAll(async () => {
  // Built once per machine with `go install` (about 30 s the first time).
  vegeta = await provisionVegeta(cacheRoot(), join(tmpdir(), 'vegeta-provision.log'));
}, 180_000);

describe('vegeta, the open loop of npm run bench -- --rates and of the overload scenario', () => {
  it('When the service holds its answers for 300 ms, then requests keep leaving on schedule and those due during the hold show it in p99', async () => {
    const received: { id: bigint; authorization: string | undefined }[] = [];
    let firstAt: number | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const now = performance.now();
        firstAt ??= now;
        const id = /"id":(\d+)/.exec(Buffer.concat(chunks).toString())?.[1] ?? '-1';
        received.push({ id: BigInt(id), authorization: request.headers.authorization });
        const since = now - firstAt;
        const hold = since >= STALL.from && since < STALL.to ? STALL.to - since : 0;
        setTimeout(() => response.writeHead(201).end('{}'), hold);
      });
    });
    const port = await listenForTest(server);

    const cpuBefore = reapedChildrenCpuSeconds(process.pid);
    const hits = await attack({
      vegeta,
      urls: [`http://127.0.0.1:${String(port)}`],
      token: 'open-loop-token',
      rate: RATE,
      seconds: SECONDS,
      firstId: 5_000n,
      bodyOf: plantBody,
      dir: await mkdtemp(join(tmpdir(), 'vegeta-')),
    });
    const generatorCpuSeconds = reapedChildrenCpuSeconds(process.pid) - cpuBefore;
    const step = rateStep(RATE, SECONDS, hits, {
      generatorCpuSeconds,
      machineBusyPercent: 0,
      usage: [],
    });

    expect(step.sent).toBe(RATE * SECONDS);
    expect(step.errors).toBe(0);
    // Every request a new plant, with the token.
    expect(received.map(({ id }) => id).toSorted((a, b) => (a < b ? -1 : 1))).toEqual(
      Array.from({ length: RATE * SECONDS }, (_, index) => 5_000n + BigInt(index)),
    );
    expect(new Set(received.map(({ authorization }) => authorization))).toEqual(
      new Set(['Bearer open-loop-token']),
    );
    // The 30 requests due during the hold waited for its end: 10 % of them all.
    expect(step.p50).toBeLessThan(50);
    expect(step.p99).toBeGreaterThan(200);
    expect(step.max).toBeGreaterThan(250);
    expect(step.perSecond[1]?.p99).toBeGreaterThan(200);
    expect(step.perSecond[0]?.p99).toBeLessThan(100);
    expect(step.behindSchedule).toBe(false);
    expect(generatorCpuSeconds).toBeGreaterThan(0);
  });
});
