import { timed } from '#shared/metrics.ts';
import type { WriterMetrics } from '../observability/metrics.ts';
import type { PlantStore } from './plant-store.ts';

/** The store, with each round trip timed. */
export function timedStore(
  store: PlantStore,
  duration: WriterMetrics['storeDuration'],
): PlantStore {
  return {
    insertNew: (plants) => timed(duration, { operation: 'insert' }, () => store.insertNew(plants)),
    findByIdAndName: (keys) =>
      timed(duration, { operation: 'find' }, () => store.findByIdAndName(keys)),
  };
}
