/** Nearest-rank percentile of ascending values, rounded to 0.01. */
export function percentile(sorted: readonly number[], p: number): number {
  const value = sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return Math.round(value * 100) / 100;
}
