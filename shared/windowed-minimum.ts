/** The lowest value seen over the last `windowMs` to twice it; it moves only when one is seen. */
export interface WindowedMinimum {
  /** undefined until a value has been seen. */
  readonly value: number | undefined;
  observe(at: number, value: number): void;
}

/**
 * A windowed minimum in two halves of `halfMs`, as BBR keeps its lowest round trip: a value is
 * forgotten between one and two halves after it was seen, and the minimum is kept as it is while
 * nothing new is seen.
 */
export function windowedMinimum(halfMs: number): WindowedMinimum {
  let halfStartedAt = -Infinity;
  let halfLowest = Infinity;
  let previousHalfLowest = Infinity;
  let value: number | undefined;
  return {
    get value() {
      return value;
    },
    observe(at, seen) {
      if (at - halfStartedAt >= halfMs) {
        previousHalfLowest = at - halfStartedAt < 2 * halfMs ? halfLowest : Infinity;
        halfLowest = Infinity;
        halfStartedAt = at;
      }
      halfLowest = Math.min(halfLowest, seen);
      value = Math.min(halfLowest, previousHalfLowest);
    },
  };
}
