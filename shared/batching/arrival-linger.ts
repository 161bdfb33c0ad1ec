/** How long a run of calls waits for more before it starts (0: at once), asked as a run could start. */
export interface Linger {
  /** Counts calls as they arrive: one, or `count` that arrived together. */
  arrived(count?: number): void;
  /** How long a run that could start now waits for more calls, in ms. */
  waitMs(): number;
  /** How many calls a run needs to start without waiting longer. */
  readonly enough: number;
}

export interface ArrivalLingerOptions {
  /** The longest wait: where the calls expected would take longer to come, a run does not wait. */
  maxMs: number;
  /** How many more calls a run waits for, at the rate they arrive. */
  wanted: number;
  /** The time constant of the rate estimate: calls this long ago count e⁻¹ as much as the latest. */
  windowMs: number;
}

/**
 * A linger that follows the arrival rate. The rate is an exponentially decaying count of calls
 * (calls per ms over about the last `windowMs`). A run waits as long as `wanted` more calls take
 * to arrive at that rate, when that is at most `maxMs`; when they would take longer (a low rate,
 * or idle) it waits for nothing, so a call that has nothing to be batched with costs no latency.
 * A run that holds `wanted + 1` calls starts without waiting longer.
 */
export function arrivalLinger(
  { maxMs, wanted, windowMs }: ArrivalLingerOptions,
  clock: () => number = performance.now.bind(performance),
): Linger {
  let rate = 0;
  let at = clock();
  const rateAt = (now: number) => rate * Math.exp(-(now - at) / windowMs);
  return {
    arrived(count = 1) {
      const now = clock();
      rate = rateAt(now) + count / windowMs;
      at = now;
    },
    waitMs() {
      const ms = wanted / rateAt(clock());
      return ms <= maxMs ? ms : 0;
    },
    enough: wanted + 1,
  };
}
