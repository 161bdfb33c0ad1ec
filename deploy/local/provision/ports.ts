import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

/**
 * Below the ephemeral ranges of Linux (32768–60999), macOS and Windows (49152–65535). A port the
 * kernel hands out for `listen(0)` comes from that range, so any outgoing connection could take it
 * in the seconds before a JVM binds it; CI saw Kafka fail to start that way.
 */
const RANGE = { from: 20_000, to: 32_767 };
const ATTEMPTS = 50;
/** A stack draws several ports before any is bound: none is handed out twice by one process. */
const handedOut = new Set<number>();

export async function freePort(range = RANGE): Promise<number> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = randomInt(range.from, range.to + 1);
    if (handedOut.has(port) || !(await isFree(port))) continue;
    handedOut.add(port);
    return port;
  }
  throw new Error(
    `no free port on ${LOOPBACK} in ${String(range.from)}–${String(range.to)} after ${String(ATTEMPTS)} tries`,
  );
}

export class PortInUseError extends Error {
  constructor(port: number, hint: string) {
    super(`${LOOPBACK}:${port} is already in use. ${hint}`);
    this.name = 'PortInUseError';
  }
}

export async function assertPortFree(port: number, hint: string): Promise<void> {
  if (!(await isFree(port))) throw new PortInUseError(port, hint);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => {
      resolve(false);
    });
    server.listen(port, LOOPBACK, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}
