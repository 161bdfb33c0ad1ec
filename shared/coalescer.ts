interface Pending<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces calls without a timer: a call made while nothing is in flight runs at once (no added
 * latency when idle); calls made while a run is in flight wait for it and then go out together
 * in the next one, so under load each round trip carries everything that queued. `runAll`
 * answers one result per item, in order; each call settles with its own result, or with the
 * error of the run that carried it.
 */
export function coalescer<Item, Result>(
  runAll: (items: Item[]) => Promise<readonly Result[]>,
  maxBatchSize = 500,
): (item: Item) => Promise<Result> {
  const queue: Pending<Item, Result>[] = [];
  let running = false;

  const drain = async () => {
    running = true;
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
    running = false;
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void drain();
    });
}
