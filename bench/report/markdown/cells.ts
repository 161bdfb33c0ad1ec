import { times } from '../summary.ts';

/** `a ÷ b` as the report writes ratios, `n/a` when `b` is 0. */
export const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : times(a / b));
/** A target's verdict, a missed one in bold. */
export const verdict = (met: boolean) => (met ? 'met' : '**missed**');
/**
 * Milliseconds to one decimal; `–` for a figure that is missing: a step without a 2xx answer has
 * no latency (NaN in memory, null once read back from JSON).
 */
export const ms = (value: number | null) =>
  value !== null && Number.isFinite(value) ? value.toFixed(1) : '–';
