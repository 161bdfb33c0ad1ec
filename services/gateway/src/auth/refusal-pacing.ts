/** How many refused tokens a second are answered at once, and how long the others wait. */
export interface RefusalPacing {
  /** Refusals answered at once in each second; 0 delays every one. */
  perSecond: number;
  delayMs: number;
}

/**
 * A flood of wrong tokens costs the gateway routing, hooks and an answer per request, as many as
 * a client can send; answering them later makes a client that waits for its answers (every HTTP/1.1
 * client without pipelining) send one per connection per delay, while the connection cap bounds
 * how many it holds. Refusals within the budget, all a misconfigured client or a test sends, are
 * answered at once. A fixed window: a second starts with the first refusal after the last one.
 */
export function refusalPacer({ perSecond, delayMs }: RefusalPacing, now: () => number = Date.now) {
  let windowStart = -Infinity;
  let refused = 0;
  return {
    /** How long to wait before answering this refusal. */
    delayOfNext(): number {
      const time = now();
      if (time - windowStart >= 1_000) {
        windowStart = time;
        refused = 0;
      }
      refused += 1;
      return refused <= perSecond ? 0 : delayMs;
    },
  };
}
