import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '#local/provision/paths.ts';

/** Fetch again under the names of who fetched: counted once, as Fetch. */
const SPLITS = new Set(['FetchConsumer', 'FetchFollower']);

/**
 * Requests of each kind the brokers (Java processes `pids`) have handled so far, from their JMX;
 * null, with a warning, where the JDK cannot attach to them (a runtime without its tools).
 */
export async function brokerRequests(
  pids: readonly number[],
): Promise<Record<string, number> | null> {
  try {
    const { stdout } = await promisify(execFile)(
      'java',
      [join(projectRoot, 'bench', 'probes', 'BrokerRequests.java'), ...pids.map(String)],
      { timeout: 30_000 },
    );
    const counts = JSON.parse(stdout) as Record<string, number>;
    return Object.fromEntries(Object.entries(counts).filter(([request]) => !SPLITS.has(request)));
  } catch (error) {
    console.warn(
      `broker requests not counted: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  }
}

/** Requests of each kind per 1,000 creates between two readings, most frequent first. */
export function requestsPerThousand(
  before: Record<string, number>,
  after: Record<string, number>,
  creates: number,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([request, count]): [string, number] => [
        request,
        Math.round(((count - (before[request] ?? 0)) / Math.max(1, creates)) * 10_000) / 10,
      ])
      .filter(([, perThousand]) => perThousand > 0)
      .sort(([, a], [, b]) => b - a),
  );
}
