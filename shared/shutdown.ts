import Type from 'typebox';
import type { Logger } from './logger.ts';

export const shutdownSettings = {
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    default: 25_000,
    minimum: 1,
    description: 'How long a stop may take before the process exits anyway, with status 1',
  }),
};

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export interface ShutdownOptions {
  logger: Logger;
  /** The log line of the first signal: what the service does while it stops. */
  stopping: string;
  stop: () => Promise<void>;
  timeoutMs: number;
}

/**
 * Stops the service on the first SIGINT or SIGTERM, then exits 0 (1 when the stop fails). A stop
 * is bounded, as close-with-grace bounds it: a second signal (an impatient Ctrl-C) or
 * `timeoutMs` passing (a broker that went away mid-stop) exits at once with status 1, saying
 * why, before an orchestrator's SIGKILL would end it without a word.
 */
export function exitOnSignal({ logger, stopping, stop, timeoutMs }: ShutdownOptions): void {
  const exit = (status: number) => {
    logger.flush();
    process.exit(status);
  };
  const onSecond = (signal: NodeJS.Signals) => {
    logger.error({ signal }, 'second signal: exiting before the stop finished');
    exit(1);
  };
  // Node restores a signal's default action (ending the process silently) whenever its last
  // listener goes: the second listener is added before the first is removed.
  const onFirst = (signal: NodeJS.Signals) => {
    for (const each of SIGNALS) {
      process.once(each, onSecond);
      process.removeListener(each, onFirst);
    }
    logger.info({ signal }, stopping);
    setTimeout(() => {
      logger.error({ timeoutMs }, 'the stop took longer than SHUTDOWN_TIMEOUT_MS: exiting');
      exit(1);
    }, timeoutMs);
    stop().then(
      () => {
        exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of SIGNALS) process.on(signal, onFirst);
}
