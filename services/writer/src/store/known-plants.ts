import { LRUCache } from 'lru-cache';
import { plantOf, type Plant } from '#shared/contracts/plant.ts';
import type { PlantStore } from './plant-store.ts';

interface KnownPlantsOptions {
  /** The most plants remembered: the least recently used are forgotten first. */
  max: number;
  /** How long a plant is remembered after it was last stored or read. */
  ttlMs: number;
}

/**
 * Some 10 MB of plants, and long enough for every retry a client or producer makes: a plant
 * removed from the store by hand is still answered as stored, by the writer that saw it, for at
 * most this long (or until it restarts).
 */
const KNOWN_PLANTS: KnownPlantsOptions = { max: 50_000, ttlMs: 10 * 60_000 };

/**
 * `store`, answering from memory for the plants this writer has stored or read back. Nothing
 * updates or deletes a stored plant, so a plant known once stays true: a repeat or a conflicting
 * create of a known id needs no round trip (two against a slow store, where a conflict's second
 * read came after the reply timeout), and is answered while the store cannot be reached. An
 * insert reports a known id as stored already without sending it (counted in `remembered`); a
 * read of a known id finds its plant when the name asked for is the stored one, and nothing
 * otherwise.
 */
export function knownPlants(
  store: PlantStore,
  remembered: { inc(count: number): void },
  options = KNOWN_PLANTS,
): PlantStore {
  const known = new LRUCache<bigint, Plant>({ max: options.max, ttl: options.ttlMs });
  /** Each id's plant if known, read once: a plant may be forgotten between two lookups. */
  const recall = (ids: Iterable<bigint>) =>
    new Map(
      [...ids].flatMap((id) => {
        const plant = known.get(id);
        return plant === undefined ? [] : [[id, plant] as const];
      }),
    );
  return {
    async insertNew(plants) {
      const recalled = recall(plants.map(({ id }) => id));
      const unknown = plants.filter(({ id }) => !recalled.has(id));
      if (recalled.size > 0) remembered.inc(recalled.size);
      const storedBefore = unknown.length > 0 ? await store.insertNew(unknown) : new Set<bigint>();
      for (const plant of unknown)
        if (!storedBefore.has(plant.id)) known.set(plant.id, plantOf(plant));
      return new Set([...recalled.keys(), ...storedBefore]);
    },
    async findByIdAndName(keys) {
      const recalled = recall(keys.map(({ id }) => id));
      const unknown = keys.filter(({ id }) => !recalled.has(id));
      const found =
        unknown.length > 0 ? await store.findByIdAndName(unknown) : new Map<bigint, Plant>();
      for (const [id, plant] of found) known.set(id, plant);
      const foundInMemory = keys.flatMap(({ id, name }) => {
        const plant = recalled.get(id);
        return plant?.name === name ? [[id, plant] as const] : [];
      });
      return new Map([...found, ...foundInMemory]);
    },
  };
}
