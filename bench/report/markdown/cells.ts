import { times } from '../summary.ts';

/** `a ÷ b` as the report writes ratios, `n/a` when `b` is 0. */
export const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : times(a / b));
/** A target's verdict, a missed one in bold. */
export const verdict = (met: boolean) => (met ? 'met' : '**missed**');
