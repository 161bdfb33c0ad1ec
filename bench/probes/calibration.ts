import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadPlants } from '../closed-loop/load.ts';

/** How fast the machine was when a report was measured: two reports compare only through it. */
export interface Calibration {
  /** A bare `node:http` server answering every request, loaded from a worker thread. */
  httpRequestsPerSecond: number;
  /** SHA-256 digests of 1 KiB per second, one thread, no I/O. */
  sha256PerSecond: number;
}

const HTTP_SECONDS = 3;
const HTTP_CONNECTIONS = 32;
const CPU_MS = 2_000;

/**
 * About five seconds that tell how fast this machine is right now, before anything else of the
 * run starts: the same code measured 7× apart on two days of the project's machine, so a report's
 * figures mean little without these beside them.
 */
export async function calibrate(): Promise<Calibration> {
  return {
    sha256PerSecond: sha256PerSecond(),
    httpRequestsPerSecond: await bareHttpRequestsPerSecond(),
  };
}

/** The calibration as a report's first line says it. */
export function calibrationLine({ httpRequestsPerSecond, sha256PerSecond }: Calibration): string {
  return `Machine calibration: a bare Node HTTP server answered ${String(httpRequestsPerSecond)} req/s (${String(HTTP_CONNECTIONS)} connections, ${String(HTTP_SECONDS)} s); one thread computed ${String(sha256PerSecond)} SHA-256 digests of 1 KiB per second.`;
}

function sha256PerSecond(): number {
  const block = Buffer.alloc(1_024, 7);
  const startedAt = performance.now();
  let digests = 0;
  while (performance.now() - startedAt < CPU_MS) {
    for (let batch = 0; batch < 100; batch++) createHash('sha256').update(block).digest();
    digests += 100;
  }
  return Math.round((digests * 1_000) / (performance.now() - startedAt));
}

async function bareHttpRequestsPerSecond(): Promise<number> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const load = await loadPlants({
      urls: [`http://127.0.0.1:${String(port)}`],
      token: 'calibration',
      connections: HTTP_CONNECTIONS,
      duration: HTTP_SECONDS,
      firstId: 1n,
    });
    return load.requestsPerSecond;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
