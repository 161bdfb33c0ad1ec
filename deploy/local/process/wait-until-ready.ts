import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { lastLines } from './log-tail.ts';
import type { ServerProcess } from './server-process.ts';

class ServerStartError extends Error {
  constructor(server: ServerProcess, reason: string, cause?: unknown) {
    super(
      `${server.name} did not start: ${reason}. Its log is ${server.logFile}; last lines:\n` +
        lastLines(server.logFile, 15),
      { cause },
    );
    this.name = 'ServerStartError';
  }
}

/**
 * Polls `answers` until the server really serves requests. Fails fast when the process exits,
 * and after `timeoutMs`; either way the server is stopped and the error names its log file, and
 * after the deadline what the last look saw (the group's members, the `/readyz` body).
 */
export async function waitUntilReady(
  server: ServerProcess,
  answers: () => Promise<void>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (server.isRunning()) {
    try {
      await answers();
      return;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      await server.stop();
      throw new ServerStartError(
        server,
        `no answer within ${timeoutMs} ms${lastSeen(lastError)}`,
        lastError,
      );
    }
    await sleep(200);
  }
  throw new ServerStartError(server, 'the process exited', lastError);
}

/** What the last look found, so a wait that failed says what it saw, not only that it failed. */
function lastSeen(cause: unknown): string {
  if (cause === undefined) return '';
  return ` (last seen: ${cause instanceof Error ? cause.message : inspect(cause)})`;
}
