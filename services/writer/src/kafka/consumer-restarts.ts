import type { Consumer } from 'kafkajs';
import type { Logger } from '#shared/logger.ts';

const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

export interface ConsumerRestarts {
  /** No restart is started from now on; resolves once a consumer being started has joined. */
  stop(): Promise<void>;
}

/**
 * kafkajs restarts a crashed consumer itself only after errors it deems retriable. After the
 * others it stays stopped for good while the process lives on: measured after a broker restart
 * ("Failed to find group coordinator", "No broker available"), with every partition of the writer
 * then unanswered until someone replaced the process. Here the writer starts it again (connect,
 * then `start`, which runs it), 1 s after the crash and doubling up to 30 s while the restarts
 * fail, until it joins its group again or the writer stops.
 */
export function restartAfterCrashes(
  consumer: Pick<Consumer, 'on' | 'events' | 'connect' | 'disconnect'>,
  start: () => Promise<void>,
  logger: Logger,
): ConsumerRestarts {
  let failedInARow = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** A consumer being started: kafkajs's stop returns early while it joins, so stop waits. */
  let starting: Promise<void> | undefined;

  const schedule = () => {
    if (stopped || timer !== undefined) return;
    const delayMs = Math.min(FIRST_BACKOFF_MS * 2 ** failedInARow, MAX_BACKOFF_MS);
    failedInARow++;
    logger.warn({ delayMs }, 'restarting the stopped consumer');
    timer = setTimeout(() => {
      timer = undefined;
      void attempt();
    }, delayMs);
  };

  // A restart that reaches the broker but cannot join crashes again, and is scheduled from there.
  // Connecting retries for as long as the Kafka client's retry settings allow (27 s against a
  // broker that refuses connections): a stop does not wait for it, the attempt disconnects after.
  const attempt = async () => {
    try {
      await consumer.connect();
      if (stopped) {
        await consumer.disconnect();
        return;
      }
      starting = start();
      await starting;
    } catch (error) {
      logger.warn({ err: error }, 'the consumer could not be restarted');
      schedule();
    } finally {
      starting = undefined;
    }
  };

  consumer.on(consumer.events.GROUP_JOIN, () => {
    failedInARow = 0;
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) schedule();
  });

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await starting;
    },
  };
}
