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
/** Node's events for an error nothing caught, and the words a log line names each with. */
const FAULTS = [
  ['uncaughtException', 'uncaught exception'],
  ['unhandledRejection', 'unhandled rejection'],
] as const;

type ProcessEvent = (typeof SIGNALS)[number] | (typeof FAULTS)[number][0];
type Listener = (cause: unknown) => void;

/** The part of `process` a stop listens on and ends; the unit test hands in a stand-in. */
export interface StoppableProcess {
  on: (event: ProcessEvent, listener: Listener) => unknown;
  removeListener: (event: ProcessEvent, listener: Listener) => unknown;
  exit: (status: number) => void;
}

export interface ShutdownOptions {
  logger: Logger;
  /** What the service does while it stops: logged on the first signal or fault. */
  stopping: string;
  stop: () => Promise<void>;
  timeoutMs: number;
}

/**
 * Stops the service on the first SIGINT or SIGTERM, then exits 0 (1 when the stop fails). An
 * uncaught exception or unhandled rejection is logged (fatal, under `err`) and stops the service
 * the same way, then exits 1: the last resort for a fault nothing handled, not error handling.
 * A stop is bounded, as close-with-grace bounds it: anything that follows the first (a second
 * signal, an impatient Ctrl-C, another fault) or `timeoutMs` passing (a broker that went away
 * mid-stop) exits at once with status 1, saying why, before an orchestrator's SIGKILL would end
 * it without a word.
 */
export function exitOnSignalOrFault(
  { logger, stopping, stop, timeoutMs }: ShutdownOptions,
  host: StoppableProcess = process,
): void {
  const exit = (status: number) => {
    logger.flush();
    host.exit(status);
  };
  const stopThenExit = (status: number) => {
    // Node restores a signal's default action (ending the process silently) whenever its last
    // listener goes: the second listeners are added before the first ones are removed.
    for (const [event, listener] of afterFirst) host.on(event, listener);
    for (const [event, listener] of first) host.removeListener(event, listener);
    setTimeout(() => {
      logger.error({ timeoutMs }, 'the stop took longer than SHUTDOWN_TIMEOUT_MS: exiting');
      exit(1);
    }, timeoutMs);
    stop().then(
      () => {
        exit(status);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };

  const first = new Map<ProcessEvent, Listener>();
  const afterFirst = new Map<ProcessEvent, Listener>();
  for (const signal of SIGNALS) {
    first.set(signal, () => {
      logger.info({ signal }, stopping);
      stopThenExit(0);
    });
    afterFirst.set(signal, () => {
      logger.error({ signal }, 'second signal: exiting before the stop finished');
      exit(1);
    });
  }
  for (const [event, words] of FAULTS) {
    first.set(event, (error) => {
      logger.fatal({ err: error }, `${words}: stopping the service, then exiting with status 1`);
      logger.info(stopping);
      stopThenExit(1);
    });
    afterFirst.set(event, (error) => {
      logger.fatal({ err: error }, `${words} while stopping: exiting before the stop finished`);
      exit(1);
    });
  }
  for (const [event, listener] of first) host.on(event, listener);
}
