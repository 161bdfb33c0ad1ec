export interface ConcurrencyLimit {
  /** Creates admitted now at most. */
  readonly limit: number;
  readonly inFlight: number;
  /** Whether one more create would be admitted now: the check made before a body is read. */
  hasRoom(): boolean;
  /**
   * Admits one create and returns what to call once it has an outcome (`answered`: false when no
   * writer answered, the reply timed out or Kafka refused the command), or undefined when full.
   */
  enter(): ((answered: boolean) => void) | undefined;
}

export interface ConcurrencyLimitOptions {
  /** The limit never goes above this (MAX_IN_FLIGHT). */
  max: number;
  /** Nor below this, nor above `max`. */
  min: number;
  initial: number;
  /** A create answered slower than this, or not answered, lowers the limit; 0: the limit is `max`. */
  latencyTargetMs: number;
  now?: () => number;
}

/** Each create beyond the target multiplies the limit by this. */
const BACKOFF = 0.9;

/**
 * An adaptive bound on creates in flight (AIMD, as Netflix's concurrency-limits library has it):
 * each create answered within the latency target raises the limit by one while at least half of it
 * is used, each one slower or unanswered multiplies it by 0.9. Under overload it settles where a
 * few percent of creates exceed the target, so a gateway admits about as many creates as the
 * writers answer within the target and refuses the rest at once, instead of queueing them into
 * timeouts. docs/decisions/0064-adaptive-admission.md tells why.
 */
export function concurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  const { max, latencyTargetMs, now = Date.now } = options;
  const min = Math.min(options.min, max);
  let limit = latencyTargetMs === 0 ? max : Math.min(max, Math.max(min, options.initial));
  let inFlight = 0;
  const learn = (latencyMs: number, answered: boolean) => {
    if (latencyTargetMs === 0) return;
    if (!answered || latencyMs > latencyTargetMs) limit = Math.max(min, limit * BACKOFF);
    else if (inFlight * 2 >= limit) limit = Math.min(max, limit + 1);
  };
  const hasRoom = () => inFlight < Math.floor(limit);
  return {
    get limit() {
      return Math.floor(limit);
    },
    get inFlight() {
      return inFlight;
    },
    hasRoom,
    enter() {
      if (!hasRoom()) return undefined;
      inFlight++;
      const enteredAt = now();
      let left = false;
      return (answered) => {
        if (left) return;
        left = true;
        learn(now() - enteredAt, answered);
        inFlight--;
      };
    },
  };
}

/**
 * However slow creates are, this many are admitted at once: a slow store or a gray fault must not
 * turn a gateway's few clients away, only a flood of them.
 */
const FLOOR = 32;
/** Where a starting gateway's limit begins: about what one gateway needs at this machine's peak. */
const INITIAL = 64;

/** The gateway's bound on creates waiting for writers, from MAX_IN_FLIGHT and the latency target. */
export function createAdmission(settings: {
  maxInFlight: number;
  createLatencyTargetMs: number;
}): ConcurrencyLimit {
  return concurrencyLimit({
    max: settings.maxInFlight,
    min: FLOOR,
    initial: INITIAL,
    latencyTargetMs: settings.createLatencyTargetMs,
  });
}
