/**
 * A scenario's fault did not take (the disk is not full, the broker still runs, the path still
 * answers): its targets would judge a run that tested nothing, so the run ends without them.
 */
export class FaultNotMade extends Error {
  constructor(scenario: string, what: string) {
    super(`chaos ${scenario}: FAULT NOT MADE: ${what}; no target was judged`);
    this.name = 'FaultNotMade';
  }
}

/** The exit code of a run whose fault did not take: neither a pass (0) nor a missed target (1). */
export const FAULT_NOT_MADE_EXIT = 3;
