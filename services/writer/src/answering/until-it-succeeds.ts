import { setTimeout as sleep } from 'node:timers/promises';

/** How long the writer waits before it tries work that failed again: a batch, a partition. */
export const RETRY_MS = 500;

/**
 * Runs `attempt` until it succeeds, RETRY_MS apart, while `keepTrying`; `retrying` hears of each
 * failure first.
 */
export async function untilItSucceeds<T>(
  attempt: () => Promise<T>,
  keepTrying: () => boolean,
  retrying: (error: unknown) => void,
): Promise<T> {
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!keepTrying()) throw error;
      retrying(error);
      await sleep(RETRY_MS);
    }
  }
}
