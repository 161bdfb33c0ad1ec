import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import Type from 'typebox';
import { ConfigError, exitOnConfigError } from './config.ts';
import type { Logger } from './logger.ts';

/**
 * Below the 60 s the Kubernetes manifests' startup probes allow, so a service says why it gave up
 * before the kubelet kills it without a word; far above the few seconds topics take to get leaders.
 */
export const STARTUP_TIMEOUT_MS = 45_000;

export const startUpSettings = {
  STARTUP_TIMEOUT_MS: Type.Integer({
    default: STARTUP_TIMEOUT_MS,
    minimum: 1,
    description:
      'How long a service waits at start-up for Kafka, its topics and the store before it exits with status 1',
  }),
};

/** The first wait after a failed attempt; each next one doubles, up to MAX_DELAY_MS. */
const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 2_000;

/**
 * Why a service could not start: a refusal retrying cannot cure, or the bound ran out.
 * @internal Exported because its unit test tells it from the error it wraps.
 */
export class StartUpError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'StartUpError';
  }
}

/** Whether trying again may succeed (a server not up yet, metadata not yet propagated). */
type RetriableRule = (error: unknown) => boolean;

export interface StartUp {
  /**
   * Runs `attempt` until it succeeds. An error `retriable` accepts is logged with what the
   * service waits for, then tried again after a growing pause while the start-up's bound lasts;
   * any other error, or the bound running out, throws a StartUpError naming `waitingFor` and the
   * cause. A ConfigError passes through as it is: its message is the operator's already.
   */
  retry<T>(waitingFor: string, attempt: () => Promise<T>, retriable: RetriableRule): Promise<T>;
}

/**
 * The start-up of one service: every step retried shares one bound of `timeoutMs`, counted from
 * now. An attempt still running when the bound ends is not awaited: the error says so, and the
 * service exits.
 */
export function startUpWithin(timeoutMs: number, logger: Logger): StartUp {
  const deadline = Date.now() + timeoutMs;
  return {
    async retry(waitingFor, attempt, retriable) {
      let lastError: unknown;
      for (let attempts = 1, delayMs = FIRST_DELAY_MS; ; attempts += 1) {
        const outcome = await beforeDeadline(attempt(), deadline);
        if (outcome.done) return outcome.value;
        const { error } = outcome;
        if (error === undefined) {
          const running = `attempt ${String(attempts)} had not ended`;
          throw new StartUpError(
            `gave up waiting for ${waitingFor} after ${String(timeoutMs)} ms (STARTUP_TIMEOUT_MS): ${
              lastError === undefined ? running : `${reasonOf(lastError)} (${running})`
            }`,
            lastError,
          );
        }
        lastError = error;
        if (error instanceof ConfigError) throw error;
        if (!retriable(error))
          throw new StartUpError(
            `waiting for ${waitingFor} cannot succeed: ${reasonOf(error)}`,
            error,
          );
        if (Date.now() + delayMs >= deadline)
          throw new StartUpError(
            `gave up waiting for ${waitingFor} after ${String(timeoutMs)} ms (STARTUP_TIMEOUT_MS): ${reasonOf(error)}`,
            error,
          );
        logger.warn(
          { err: error, attempt: attempts, retryInMs: delayMs, timeoutMs },
          `waiting for ${waitingFor}: ${reasonOf(error)}`,
        );
        await sleep(delayMs);
        delayMs = Math.min(2 * delayMs, MAX_DELAY_MS);
      }
    },
  };
}

type Outcome<T> = { done: true; value: T } | { done: false; error: unknown };

/** The attempt's outcome, or an error of `undefined` when the deadline comes first. */
async function beforeDeadline<T>(attempt: Promise<T>, deadline: number): Promise<Outcome<T>> {
  const timeout = new AbortController();
  const deadlinePassed = sleep(Math.max(0, deadline - Date.now()), undefined, {
    signal: timeout.signal,
    ref: false,
  }).then(
    (): Outcome<T> => ({ done: false, error: undefined }),
    (): Outcome<T> => ({ done: false, error: undefined }),
  );
  try {
    return await Promise.race([
      attempt.then(
        (value): Outcome<T> => ({ done: true, value }),
        (error: unknown): Outcome<T> => ({ done: false, error: error ?? new Error(String(error)) }),
      ),
      deadlinePassed,
    ]);
  } finally {
    timeout.abort();
  }
}

/**
 * The message of `error` and of what it wraps, with each Kafka error's type: kafkajs wraps the
 * error its own retries gave up on (KafkaJSNumberOfRetriesExceeded) and the one it refused to
 * retry (KafkaJSNonRetriableError), and the wrapped one says what happened.
 */
function reasonOf(error: unknown): string {
  const parts: string[] = [];
  let at: unknown = error;
  for (; at instanceof Error; at = at.cause) {
    const { type } = at as Error & { type?: unknown };
    const part = typeof type === 'string' ? `${at.message} (${type})` : at.message;
    if (parts.at(-1) !== part) parts.push(part);
  }
  if (at !== undefined && at !== null) parts.push(typeof at === 'string' ? at : inspect(at));
  return parts.join(': ');
}

/** For entry points: a start-up that failed is logged, naming its cause, and the process exits 1. */
export function exitOnStartUpError(logger: Logger): (error: unknown) => never {
  return (error) => {
    if (error instanceof ConfigError) return exitOnConfigError(error);
    if (!(error instanceof StartUpError)) throw error;
    logger.fatal({ err: error.cause }, error.message);
    logger.flush();
    process.exit(1);
  };
}
