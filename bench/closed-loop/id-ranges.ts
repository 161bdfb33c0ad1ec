import type { Variant } from '../options.ts';

/** Each variant's ids, 2^40 apart; range 4 holds the plants of --preload. */
const VARIANT_RANGE: Record<Variant, bigint> = {
  ceiling: 1n << 40n,
  direct: 2n << 40n,
  e2e: 3n << 40n,
  nestjs: 5n << 40n,
  bare: 6n << 40n,
};

/**
 * Within one measurement, ids count up from its first for the measured load; its other loads
 * start 2^32 further each. A retrying run's measurement starts at 4, 5, 6 × 2^32 (`run` 0, 1, 2).
 */
export const LOAD_OFFSET = {
  sequential: 1n << 32n,
  soak: 2n << 32n,
  warmup: 3n << 32n,
  openLoop: 7n << 32n,
} as const;

/** Where every load of a bench run starts, so that each request creates a plant never created. */
export interface IdRanges {
  /** The first id of a variant's repetition (from 1), or of one of its retrying runs (from 0). */
  firstId(variant: Variant, round: number, retryingRun?: bigint): bigint;
  /** The first of the plants written straight into the store by --preload. */
  preloaded: bigint;
}

export function idRanges(beyond2To53: boolean): IdRanges {
  // FerretDB reads an id beyond ±2^53 differently from one within (the writer reads a duplicate
  // by id and name for that), and Snowflake-style ids are all beyond.
  const base = beyond2To53 ? 1n << 60n : 0n;
  return {
    firstId: (variant, round, retryingRun) =>
      base +
      VARIANT_RANGE[variant] +
      // Each repetition apart from the others within its variant's range.
      (BigInt(round - 1) << 35n) +
      (retryingRun === undefined ? 0n : (4n + retryingRun) << 32n),
    preloaded: base + (4n << 40n),
  };
}
