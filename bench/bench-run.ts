import type { ProgressLine } from '#tooling/progress/progress-line.ts';
import type { ReachedStore } from '#local/faults/distant-store.ts';
import type { LocalStack } from '#local/stack.ts';
import type { Calibration } from './probes/calibration.ts';
import type { IdRanges } from './closed-loop/id-ranges.ts';
import type { BenchOptions } from './options.ts';

/** What every measurement of one `npm run bench` shares. */
export interface BenchRun {
  options: BenchOptions;
  stack: LocalStack;
  /** The stack's store as the variants reach it: as it is, or through `--store-delay`'s proxy. */
  store: ReachedStore;
  /** Names the run's folder and its result files. */
  startedAt: string;
  /** The run's folder: the stack's data, `logs/` and `profiles/`. */
  dir: string;
  logDir: string;
  /** The one bearer token the services accept. */
  token: string;
  ids: IdRanges;
  /** How fast the machine measured before the run began. */
  calibration: Calibration;
  /** The open-loop load generator's binary, when `--rates` or `--capacity` asked for it. */
  vegeta: string | null;
  /** How the load under way is going, a line rewritten each second (a plain line every 5 s in a log). */
  progress: ProgressLine;
}
