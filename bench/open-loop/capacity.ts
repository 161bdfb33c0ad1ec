import { heldTarget, type RateStep } from './rate-step.ts';

export interface Capacity {
  targetMs: number;
  /** The highest rate measured that held the target; null when even the lowest tried did not. */
  rate: number | null;
  /** Every step, in the order measured. */
  steps: RateStep[];
}

/** The search stops when the rate that held and the one that did not are this close. */
const PRECISION = 0.1;
/** Below this many requests a second the search gives up. */
const LOWEST_RATE = 10;
/** Above this it stops doubling: more than this machine's loopback can carry. */
const HIGHEST_RATE = 100_000;

const roundRate = (rate: number) => (rate < 100 ? Math.round(rate) : Math.round(rate / 10) * 10);

/**
 * The highest steady rate whose step holds the target (`heldTarget`), to within 10 %: from
 * `startRate`, doubling while steps hold it or halving while they do not, then halving the gap
 * between the highest rate that held and the lowest that did not.
 */
export async function searchCapacity(
  measureAt: (rate: number) => Promise<RateStep>,
  { targetMs, startRate }: { targetMs: number; startRate: number },
): Promise<Capacity> {
  const steps: RateStep[] = [];
  const holds = async (rate: number) => {
    const step = await measureAt(rate);
    steps.push(step);
    return heldTarget(step, targetMs);
  };
  let held: number | null = null;
  let missed: number | null = null;
  let rate = roundRate(Math.max(LOWEST_RATE, startRate));
  if (await holds(rate)) {
    held = rate;
    while (missed === null && rate < HIGHEST_RATE) {
      rate = roundRate(rate * 2);
      if (await holds(rate)) held = rate;
      else missed = rate;
    }
  } else {
    missed = rate;
    while (held === null && rate / 2 >= LOWEST_RATE) {
      rate = roundRate(rate / 2);
      if (await holds(rate)) held = rate;
      else missed = rate;
    }
  }
  while (held !== null && missed !== null && missed - held > PRECISION * held) {
    rate = roundRate((held + missed) / 2);
    if (rate === held || rate === missed) break;
    if (await holds(rate)) held = rate;
    else missed = rate;
  }
  return { targetMs, rate: held, steps };
}
