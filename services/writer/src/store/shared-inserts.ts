import type { NewPlant } from '#shared/contracts/plant.ts';
import { coalescer } from '#shared/batching/coalescer.ts';
import type { PlantStore } from './plant-store.ts';
import { waitFor, type StoreDistance } from './store-distance.ts';

/**
 * Inserts in flight at once: a slow one (duplicates) holds only the batches it carries. The
 * batches of one fetch are gathered into one insert, and their replies into one send, so a
 * duplicate on one partition delays the fresh creates the same fetch brought for the others,
 * by one chunk's re-insert; under load that gathering cut the broker's produce requests per
 * create by almost half (docs/history/2026-11-25-gathering.md).
 */
const INSERTS_AT_ONCE = 2;
/**
 * An insert that takes longer than this (a store slow), or than store-distance.ts's wait with a
 * far store, no longer holds the next ones back: they go out beside it, so that each command waits
 * for one round trip, not for the ones before it too.
 */
const OVERLAP_AFTER_MS = 100;
/**
 * Inserts in flight at most, those gone out beside a slow one included: a store that answers
 * slowly, or looks far (on a loaded host the driver's checks take hundreds of ms), is otherwise
 * sent one more every OVERLAP_AFTER_MS or 5 ms for as long as it stays slow.
 */
const MAX_INSERTS_IN_FLIGHT = 8;

/**
 * The store as the batches in hand share it: their inserts gathered into one, each batch told
 * which of its own ids were stored before. Each reads back its own duplicates outside the shared
 * insert, so that the next insert (other partitions' fresh creates) never waits for another
 * batch's reads.
 */
export function sharedInserts(store: PlantStore, distance: StoreDistance): PlantStore {
  const insertNew = coalescer<readonly NewPlant[], Set<bigint>>(
    async (batches) => {
      const alreadyStored = await store.insertNew(batches.flat());
      return batches.map(
        (plants) => new Set(plants.flatMap(({ id }) => (alreadyStored.has(id) ? [id] : []))),
      );
    },
    {
      concurrency: INSERTS_AT_ONCE,
      gather: true,
      overlapAfterMs: () => waitFor(distance, OVERLAP_AFTER_MS),
      maxInFlight: MAX_INSERTS_IN_FLIGHT,
    },
  );
  return { insertNew, findByIdAndName: (keys) => store.findByIdAndName(keys) };
}
