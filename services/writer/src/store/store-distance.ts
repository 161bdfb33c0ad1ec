import type { MongoClient } from 'mongodb';
import { windowedMinimum } from '#shared/windowed-minimum.ts';

/**
 * Whether the store is far: its inserts are waited for by its round trip rather than by its
 * work, and a lane that waits for one before its next pays that round trip again.
 */
export interface StoreDistance {
  readonly far: boolean;
  /** The store's lowest round trip over the last 5 to 10 s, in ms; undefined before the first. */
  readonly roundTripMs?: number | undefined;
}

/**
 * Far from this round trip on: a store on the same host or in the same zone answers a check well
 * within it, under load too, while one in another region, or 10 ms away each way, does not
 * (docs/history/2026-12-03-figures-behind-the-comments.md).
 * @internal Exported because its unit test places the store either side of it.
 */
export const FAR_STORE_MS = 10;
/**
 * With a far store a work is waited for by the store's round trip, not by its work: the fetch
 * loop is held, a lane kept serial and an insert kept alone this long at most (instead of
 * lanes/lane-tuning.ts's MAX_FETCH_HOLD_MS and OVERLAP_AFTER_MS and the shared inserts' own), so that
 * the commands that arrive meanwhile are fetched and inserted beside it instead of a round trip
 * after it. Near the store those waits are what batches commands best.
 * @internal Exported because the lanes' unit test times slow work either side of it.
 */
export const FAR_STORE_WAIT_MS = 5;
const MEMORY_HALF_MS = 5_000;

/** A store whose distance is not known: near. */
export const NEAR_STORE: StoreDistance = { far: false };

/** How long a work in hand is waited for at most: `nearMs` near the store, FAR_STORE_WAIT_MS far. */
export function waitFor(distance: StoreDistance, nearMs: number): number {
  return distance.far ? FAR_STORE_WAIT_MS : nearMs;
}

/**
 * The store's distance from the driver's checks of the server (a `hello` every few seconds on a
 * connection of their own): their round trip is the store's distance, not its queue, where an
 * insert's duration is both, and an insert under load on a store near by took longer than a far
 * store's round trip. A
 * server that streams its checks (MongoDB 4.4 and later holds each until something changes) gives
 * only its first one a round trip, which is then kept.
 */
export function storeDistance(
  client: Pick<MongoClient, 'on'>,
  now: () => number = () => performance.now(),
): StoreDistance {
  const lowest = windowedMinimum(MEMORY_HALF_MS);
  client.on('serverHeartbeatSucceeded', ({ duration, awaited }) => {
    if (!awaited) lowest.observe(now(), duration);
  });
  return {
    get far() {
      return (lowest.value ?? 0) >= FAR_STORE_MS;
    },
    get roundTripMs() {
      return lowest.value;
    },
  };
}
