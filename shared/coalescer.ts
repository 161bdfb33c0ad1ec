interface Pending<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export interface CoalescerOptions {
  /** The most items one run carries. */
  maxBatchSize?: number;
  /** How many runs may be in flight at once; a slow run then holds only the calls it carries. */
  concurrency?: number;
  /**
   * A run that could start at once waits for the rest of this turn of the event loop
   * (`setImmediate`): the calls made by everything the same I/O delivered usually go out
   * together (not those a run that ends meanwhile takes first). Tests with fake timers must
   * leave `setImmediate` real.
   */
  gather?: boolean;
}

/**
 * Coalesces calls without a timer: a call made while fewer than `concurrency` runs are in flight
 * runs at once, or at the end of the event loop's turn when gathering (no timer's latency when
 * idle); calls made while every run is in flight wait and then go out together in the next run,
 * so under load each round trip carries everything that queued.
 * `runAll` answers one result per item, in order; each call settles with its own result, or with
 * the error of the run that carried it.
 */
export function coalescer<Item, Result>(
  runAll: (items: Item[]) => Promise<readonly Result[]>,
  { maxBatchSize = 500, concurrency = 1, gather = false }: CoalescerOptions = {},
): (item: Item) => Promise<Result> {
  const queue: Pending<Item, Result>[] = [];
  let inFlight = 0;
  let gathering = false;

  const drain = async () => {
    inFlight++;
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatchSize);
      try {
        const results = await runAll(batch.map(({ item }) => item));
        batch.forEach(({ resolve, reject }, index) => {
          if (index < results.length) resolve(results[index] as Result);
          else reject(new Error(`coalesced run answered ${results.length} of ${batch.length}`));
        });
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    inFlight--;
  };

  /** Starts as many runs as free slots and queued calls allow (each takes calls at once). */
  const startRuns = () => {
    while (inFlight < concurrency && queue.length > 0) void drain();
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!gather) startRuns();
      else if (!gathering && inFlight < concurrency) {
        gathering = true;
        setImmediate(() => {
          gathering = false;
          startRuns();
        });
      }
    });
}
