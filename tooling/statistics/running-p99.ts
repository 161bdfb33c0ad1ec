import { build as histogram } from 'hdr-histogram-js';

/**
 * Latencies recorded as they come, for the p99 so far that a progress line shows: an HDR
 * histogram in microseconds, 3 significant digits (within 0.1 %).
 */
export function runningP99() {
  const micros = histogram({ numberOfSignificantValueDigits: 3 });
  return {
    record(ms: number) {
      micros.recordValue(Math.max(1, Math.round(ms * 1_000)));
    },
    /** 0 until a latency is recorded. */
    p99Ms(): number {
      return micros.totalCount === 0 ? 0 : micros.getValueAtPercentile(99) / 1_000;
    },
  };
}
