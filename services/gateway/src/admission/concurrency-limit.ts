import { windowedMinimum } from '#shared/windowed-minimum.ts';

export interface ConcurrencyLimit {
  /** Creates admitted now at most. */
  readonly limit: number;
  readonly inFlight: number;
  /**
   * The latency the limit takes as the path's own, without a queue (the store's and the broker's
   * distance, the writers' batching): undefined until two creates have met a quiet path.
   */
  readonly pathLatencyMs: number | undefined;
  /** Whether one more create would be admitted now: the check made before a body is read. */
  hasRoom(): boolean;
  /**
   * Admits one create and returns what to call once it has an outcome (`answered`: false when no
   * writer answered, the reply timed out or Kafka refused the command), or undefined when full.
   */
  enter(): ((answered: boolean) => void) | undefined;
}

/**
 * @internal Exported because the options of concurrencyLimit, for its unit test.
 */
export interface ConcurrencyLimitOptions {
  /** The limit never goes above this (MAX_IN_FLIGHT). */
  max: number;
  /** Nor below this, nor above `max`. */
  min: number;
  /** Where it starts, and where it returns to while there is no queue. */
  initial: number;
  /**
   * The latency a create may take, or twice the path's own latency if that is longer: when even
   * the fastest create of an interval took longer, or none was answered, while the limit is
   * crowded, it falls; 0: the limit is `max`.
   */
  latencyTargetMs: number;
  /** The limit is crowded with this many creates in flight, or with half of it if that is fewer. */
  crowdedAt: number;
  /** A create admitted while fewer than this many are in flight meets a quiet path. */
  quietBelow: number;
  now?: () => number;
}

/** Creates are judged by the fastest of each interval this long, as CoDel judges packets. */
const INTERVAL_MS = 100;
/**
 * A standing queue multiplies the limit by the latency a create may take over what the fastest
 * took, once an interval, within these: a queue far beyond it is cut fast, one near it by a tenth.
 */
const BACKOFF = { most: 0.9, least: 0.5 };
/**
 * An interval without a queue, while the limit is mostly unused, multiplies it by this, up to its
 * start, a second at least after its last decrease or return: near saturation, a limit that came
 * back within a second let the next pause of the store or the broker queue hundreds of creates.
 */
const RECOVERY = { factor: 1.1, everyMs: 1_000 };
/**
 * The path latency is the lowest of quiet creates over the last 5 to 10 s, in two halves of this,
 * as BBR keeps its lowest round trip over 10 s: long enough to outlast a flood's seconds, short
 * enough to follow a store that moved.
 */
const PATH_MEMORY_MS = 5_000;

/**
 * An adaptive bound on creates in flight: additive increase, multiplicative decrease, as TCP
 * bounds its window, on the signal CoDel uses for a queue, judged against the path's own latency
 * as TCP Vegas judges against its base round trip. The signal is not one slow create (a pause of
 * the store or of a garbage collector makes a burst of those at any load) but an interval of 100 ms
 * in which even the fastest create was late, which only a standing queue does.
 *
 * A create is late when it took longer than the target, or than twice the path's own latency if
 * that is longer: a create may wait for the batch under way on its writer's lane before its own,
 * one more path latency without any standing queue. Where the path is shorter than half the
 * target (a store and a broker near by) the target alone decides; a store far away lengthens
 * every create without lowering the limit. Until the path is known, only an interval without an
 * answer is late: the first creates into an idle gateway meet a quiet path, so that is a round
 * trip or two.
 *
 * The path's own latency (`pathLatencyMs`) is learned only from creates that met a quiet path:
 * admitted while fewer than `quietBelow` were in flight, so that none of this gateway's queue
 * stood before them. A closed loop or a flood keeps the limit busy and teaches nothing, however
 * long it lasts: the latency it meets may be a queue as well as distance, and only a create sent
 * into an empty path tells the two apart. Each quiet create gives the slower of itself and the
 * quiet create before it (so that one answered from a shortcut, such as a writer's memory of a
 * plant, does not set it), and the path latency is the lowest of those over the last 5 to 10 s,
 * kept as it is while no create meets a quiet path.
 *
 * While the limit is crowded (half of it in use, or `crowdedAt` creates), an interval whose
 * fastest create was late multiplies the limit by the latency it may take over the one it took
 * (at most 0.9, at least 0.5: an interval with no answer halves it). While half is in use, each
 * create in time raises the limit by one until the first decrease (a fast start), by 1/limit
 * after it (one per limit's worth of creates). While less than half is in use, an interval
 * without a queue brings it back towards where it started, by a tenth, a second at least after
 * its last move.
 *
 * Under overload it settles where creates take about what they may: a gateway admits about as
 * many creates as it and the writers answer, and refuses the rest at once instead of queueing
 * them into timeouts. docs/decisions/0064-adaptive-admission.md tells why.
 * @internal Exported because its unit test drives the limit on a clock of its own; the gateway builds it through createAdmission.
 */
export function concurrencyLimit(options: ConcurrencyLimitOptions): ConcurrencyLimit {
  const { max, latencyTargetMs, crowdedAt, quietBelow, now = Date.now } = options;
  const min = Math.min(options.min, max);
  const initial = Math.min(max, Math.max(min, options.initial));
  let limit = latencyTargetMs === 0 ? max : initial;
  let inFlight = 0;
  let decreased = false;
  let intervalStartedAt = now();
  let movedAt = -Infinity;
  let fastestMs = Infinity;
  const path = quietPathLatency();
  /** A create's latency over the most it may take: above 1 late; path unknown: on time. */
  const lateness = (latencyMs: number) =>
    path.latencyMs === undefined && latencyMs !== Infinity
      ? 0
      : latencyMs / Math.max(latencyTargetMs, 2 * (path.latencyMs ?? 0));
  const endInterval = (at: number, used: boolean) => {
    const late = lateness(fastestMs);
    if ((used || inFlight >= crowdedAt) && late > 1) {
      const factor = Math.min(BACKOFF.most, Math.max(BACKOFF.least, 1 / late));
      limit = Math.max(min, limit * factor);
      decreased = true;
      movedAt = at;
    } else if (!used && late <= 1 && at - movedAt >= RECOVERY.everyMs) {
      limit = Math.max(limit, Math.min(initial, limit * RECOVERY.factor));
      movedAt = at;
    }
    intervalStartedAt = at;
    fastestMs = Infinity;
  };
  const learn = (enteredAt: number, quiet: boolean, answered: boolean) => {
    if (latencyTargetMs === 0) return;
    const at = now();
    const latencyMs = answered ? at - enteredAt : Infinity;
    if (quiet) path.observe(at, latencyMs);
    const used = inFlight * 2 >= limit;
    fastestMs = Math.min(fastestMs, latencyMs);
    if (at - intervalStartedAt >= INTERVAL_MS) endInterval(at, used);
    if (used && lateness(latencyMs) <= 1)
      limit = Math.min(max, limit + (decreased ? 1 / limit : 1));
  };
  const hasRoom = () => inFlight < Math.floor(limit);
  return {
    get limit() {
      return Math.floor(limit);
    },
    get inFlight() {
      return inFlight;
    },
    get pathLatencyMs() {
      return path.latencyMs;
    },
    hasRoom,
    enter() {
      if (!hasRoom()) return undefined;
      const quiet = inFlight < quietBelow;
      inFlight++;
      const enteredAt = now();
      let left = false;
      return (answered) => {
        if (left) return;
        left = true;
        learn(enteredAt, quiet, answered);
        inFlight--;
      };
    },
  };
}

/**
 * The lowest of the quiet creates' latencies (each the slower of two consecutive) over the last
 * PATH_MEMORY_MS to twice it.
 */
function quietPathLatency() {
  let lastMs = Infinity;
  const lowest = windowedMinimum(PATH_MEMORY_MS);
  return {
    get latencyMs() {
      return lowest.value;
    },
    observe(at: number, quietMs: number) {
      const sampleMs = Math.max(quietMs, lastMs);
      lastMs = quietMs;
      if (sampleMs !== Infinity) lowest.observe(at, sampleMs);
    },
  };
}

/**
 * However slow creates are, this many are admitted at once: a slow store or a gray fault must not
 * turn a gateway's few clients away, only a flood of them.
 */
const FLOOR = 32;
/**
 * A standing queue of this many creates is shortened however high the limit is: a gateway whose
 * own thread is saturated holds no more creates than its clients have connections, which may be
 * far fewer than half the limit, and every one of them waits in that queue.
 */
const CROWDED_AT = 2 * FLOOR;
/**
 * Where the limit starts and returns to without a queue: enough for a pause of a few hundred ms
 * at a few thousand creates a second, which a gateway rides out without refusing any.
 */
const INITIAL = 1_000;
/**
 * A create admitted while fewer are in flight meets no queue of this gateway's worth the name: a
 * quarter of the floor, the first of any burst into an empty path.
 */
const QUIET_BELOW = FLOOR / 4;

/** The gateway's bound on creates waiting for writers, from MAX_IN_FLIGHT and the latency target. */
export function createAdmission(settings: {
  maxInFlight: number;
  createLatencyTargetMs: number;
}): ConcurrencyLimit {
  return concurrencyLimit({
    max: settings.maxInFlight,
    min: FLOOR,
    initial: INITIAL,
    crowdedAt: CROWDED_AT,
    quietBelow: QUIET_BELOW,
    latencyTargetMs: settings.createLatencyTargetMs,
  });
}
