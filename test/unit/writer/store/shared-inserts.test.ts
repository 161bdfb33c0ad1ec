import { onTestFinished, describe, expect, it, vi } from 'vitest';
import type { NewPlant } from '#shared/contracts/plant.ts';
import type { PlantStore } from '#writer/store/plant-store.ts';
import { sharedInserts } from '#writer/store/shared-inserts.ts';
import { FAR_STORE_WAIT_MS } from '#writer/store/store-distance.ts';

/** A store whose inserts never end: it counts them. */
function stalledStore() {
  const inserts: (readonly NewPlant[])[] = [];
  const store: PlantStore = {
    insertNew: (plants) => {
      inserts.push(plants);
      return new Promise(() => undefined);
    },
    findByIdAndName: () => Promise.resolve(new Map()),
  };
  return { store, inserts };
}

const plant = (id: number): NewPlant => ({ id: BigInt(id), name: `plant ${String(id)}` });

describe('sharedInserts', () => {
  it('When a far store answers no insert while batches keep arriving, then 8 inserts are in flight at most, not one more every 5 ms', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { store, inserts } = stalledStore();
    const shared = sharedInserts(store, { far: true, roundTripMs: 20 });

    for (let batch = 0; batch < 100; batch++) {
      void shared.insertNew([plant(batch)]);
      await new Promise((resolve) => setImmediate(resolve));
      vi.advanceTimersByTime(FAR_STORE_WAIT_MS);
    }

    expect(inserts).toHaveLength(8);
  });
});
