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
 * An adaptive bound on creates in flight, as TCP bounds a window (additive increase,
 * multiplicative decrease): a create slower than the latency target, or unanswered, multiplies
 * the limit by 0.9, once for all the creates admitted before that decrease (they were admitted
 * under the old limit); a create answered in time raises it, while at least half of it is used, by
 * one until the first decrease (a fast start) and by 1/limit after it (one per limit's worth of
 * creates). Under overload it settles where creates just meet the target, so a gateway admits
 * about as many creates as it and the writers answer within the target and refuses the rest at
 * once, instead of queueing them into timeouts. docs/decisions/0064-adaptive-admission.md tells why.
 */
export function concurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  const { max, latencyTargetMs, now = Date.now } = options;
  const min = Math.min(options.min, max);
  let limit = latencyTargetMs === 0 ? max : Math.min(max, Math.max(min, options.initial));
  let inFlight = 0;
  let lastDecreaseAt: number | undefined;
  const learn = (enteredAt: number, answered: boolean) => {
    if (latencyTargetMs === 0) return;
    const at = now();
    if (!answered || at - enteredAt > latencyTargetMs) {
      if (lastDecreaseAt !== undefined && enteredAt < lastDecreaseAt) return;
      limit = Math.max(min, limit * BACKOFF);
      lastDecreaseAt = at;
    } else if (inFlight * 2 >= limit) {
      limit = Math.min(max, limit + (lastDecreaseAt === undefined ? 1 : 1 / limit));
    }
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
        learn(enteredAt, answered);
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
