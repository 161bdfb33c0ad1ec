import type { Linger } from './arrival-linger.ts';

interface Pending<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

export interface CoalescerOptions<Item> {
  /** The most items one run carries, counted by `sizeOf`; a run carries one item at least. */
  maxBatchSize?: number;
  /** How much of maxBatchSize an item takes: 1 by default. */
  sizeOf?: (item: Item) => number;
  /** How many runs may be in flight at once; a slow run then holds only the calls it carries. */
  concurrency?: number;
  /**
   * A run that could start at once waits for the rest of this turn of the event loop
   * (`setImmediate`): the calls made by everything the same I/O delivered usually go out
   * together (not those a run that ends meanwhile takes first). With a `Linger`, it waits as long
   * as the linger says instead (truncated to whole ms, as timers are), or for the rest of the turn
   * once it holds `enough` calls or when the linger says 0. Tests with fake timers must leave
   * `setImmediate` real.
   */
  gather?: boolean | Linger;
  /**
   * When every run is in flight and the newest began this long ago, the next calls run beside
   * them: a slow run holds calls back this long at most, not for its whole round trip. A
   * function is asked each time.
   */
  overlapAfterMs?: number | (() => number);
  /**
   * How many runs may be in flight at most, those started beside the others included: a store
   * that slows down under them is not given one more every `overlapAfterMs`.
   */
  maxInFlight?: number;
}

/** The queue's first calls, as many as `maxBatchSize` holds (the first one always). */
function takeBatch<Item, Result>(
  queue: Pending<Item, Result>[],
  sizeOf: (item: Item) => number,
  maxBatchSize: number,
): Pending<Item, Result>[] {
  let taken = 0;
  let size = 0;
  for (const { item } of queue) {
    size += sizeOf(item);
    if (taken > 0 && size > maxBatchSize) break;
    taken++;
  }
  return queue.splice(0, taken);
}

/** Each call of a run settles with its own result; a call the results do not reach fails. */
function settle<Item, Result>(batch: Pending<Item, Result>[], results: readonly Result[]): void {
  batch.forEach(({ resolve, reject }, index) => {
    if (index < results.length) resolve(results[index] as Result);
    else reject(new Error(`coalesced run answered ${results.length} of ${batch.length}`));
  });
}

/**
 * Coalesces calls: a call made while fewer than `concurrency` runs are in flight runs at once, or
 * at the end of the event loop's turn when gathering, or after a linger that follows the arrival
 * rate (none when idle or at a low rate); calls made while every run is in flight wait and then
 * go out together in the next run, so under load each round trip carries everything that queued.
 * `runAll` answers one result per item, in order; each call settles with its own result, or with
 * the error of the run that carried it.
 */
export function coalescer<Item, Result>(
  runAll: (items: Item[]) => Promise<readonly Result[]>,
  {
    maxBatchSize = 500,
    sizeOf = () => 1,
    concurrency = 1,
    gather = false,
    overlapAfterMs = Infinity,
    maxInFlight = Infinity,
  }: CoalescerOptions<Item> = {},
): (item: Item) => Promise<Result> {
  const queue: Pending<Item, Result>[] = [];
  let inFlight = 0;
  let gathering = false;
  const linger = typeof gather === 'boolean' ? undefined : gather;
  /** The end of a linger, while a run waits for more calls. */
  let lingering: NodeJS.Timeout | undefined;
  const startGathered = () => {
    gathering = false;
    lingering = undefined;
    startRuns();
  };
  /** When the newest run began. */
  let startedAt = 0;
  /** The start of a run beside the others, once overlapAfterMs has passed. */
  let overlap: NodeJS.Timeout | undefined;

  const drain = async () => {
    inFlight++;
    // A run started beside the others ends with its calls; the others take what queued.
    for (let first = true; queue.length > 0 && (first || inFlight <= concurrency); first = false) {
      const batch = takeBatch(queue, sizeOf, maxBatchSize);
      startedAt = Date.now();
      try {
        settle(batch, await runAll(batch.map(({ item }) => item)));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    inFlight--;
    startRuns();
  };

  const overlapMs = () => (typeof overlapAfterMs === 'number' ? overlapAfterMs : overlapAfterMs());
  const mayOverlap = () => inFlight < maxInFlight && overlapMs() !== Infinity;
  const mayStart = () =>
    inFlight < concurrency || (mayOverlap() && Date.now() - startedAt >= overlapMs());
  /** Starts as many runs as free slots and queued calls allow (each takes calls at once). */
  const startRuns = () => {
    while (queue.length > 0 && mayStart()) void drain();
    overlapLater();
  };
  /** While calls wait for a busy run, starts one beside it once overlapAfterMs has passed. */
  const overlapLater = () => {
    if (queue.length === 0 || overlap !== undefined || !mayOverlap()) return;
    overlap = setTimeout(
      () => {
        overlap = undefined;
        startRuns();
      },
      Math.max(0, startedAt + overlapMs() - Date.now()),
    );
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      linger?.arrived();
      queue.push({ item, resolve, reject });
      if (lingering !== undefined && linger !== undefined && queue.length >= linger.enough) {
        clearTimeout(lingering);
        lingering = undefined;
        setImmediate(startGathered);
      } else if (gather === false) startRuns();
      else if (!gathering && inFlight < concurrency) {
        gathering = true;
        const waitMs = linger?.waitMs() ?? 0;
        if (waitMs > 0) lingering = setTimeout(startGathered, waitMs);
        else setImmediate(startGathered);
      } else overlapLater();
    });
}
