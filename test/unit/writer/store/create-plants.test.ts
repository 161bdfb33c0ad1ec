import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Plant } from '#shared/contracts/plant.ts';
import { createPlants, type KnownOutcomes } from '#writer/store/create-plants.ts';
import type { PlantStore } from '#writer/store/plant-store.ts';

describe('Creating the plants of a batch', () => {
  it('When an id was stored before, then the outcomes known once inserted (new ids, conflicts among new ids) are heard before it is read back', async () => {
    const heard: KnownOutcomes[] = [];
    const store: PlantStore = {
      insertNew: vi.fn(() => Promise.resolve(new Set([7n]))),
      findByIdAndName: vi.fn(() => {
        expect(heard).toHaveLength(1);
        return Promise.resolve(new Map([[7n, { name: 'Ivy' }]]));
      }),
    };

    const replies = await createPlants(
      [
        { id: 1n, name: 'Fern' },
        { id: 7n, name: 'Ivy' },
        { id: 1n, name: 'Moss' },
      ],
      store,
      (known) => heard.push(known),
    );

    expect(heard).toEqual([
      [
        { status: 200, plant: { name: 'Fern' } },
        undefined,
        expect.objectContaining({ status: 400 }),
      ],
    ]);
    expect(replies.map(({ status }) => status)).toEqual([200, 200, 400]);
  });

  it('When every id is new, then nothing is read back and no outcome is heard early', async () => {
    const inserted = vi.fn();
    const findByIdAndName = vi.fn();
    const store: PlantStore = { insertNew: () => Promise.resolve(new Set()), findByIdAndName };

    await createPlants([{ id: 1n, name: 'Fern' }], store, inserted);

    expect(inserted).not.toHaveBeenCalled();
    expect(findByIdAndName).not.toHaveBeenCalled();
  });

  describe('when the insert is slow', () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    /** A store whose insert answers `alreadyStored` once the test has let 100 ms pass. */
    const slowInsert = (alreadyStored: bigint[], found: Map<bigint, Plant>[]) => {
      const findByIdAndName = vi.fn(() => Promise.resolve(found.shift() ?? new Map()));
      const store: PlantStore = {
        insertNew: () =>
          new Promise((resolve) => {
            setTimeout(() => {
              resolve(new Set(alreadyStored));
            }, 150);
          }),
        findByIdAndName,
      };
      return { store, findByIdAndName };
    };

    it("When a small batch's insert is unanswered after 100 ms, then its plants are read beside it, and a plant found there is not read again", async () => {
      const { store, findByIdAndName } = slowInsert([7n], [new Map([[7n, { name: 'Ivy' }]])]);

      const creating = createPlants(
        [
          { id: 7n, name: 'Ivy' },
          { id: 8n, name: 'Fern' },
        ],
        store,
      );
      await vi.advanceTimersByTimeAsync(150);

      expect((await creating).map(({ status }) => status)).toEqual([200, 200]);
      expect(findByIdAndName).toHaveBeenCalledExactlyOnceWith([
        { id: 7n, name: 'Ivy' },
        { id: 8n, name: 'Fern' },
      ]);
    });

    it('When an id stored before is not found beside the insert, then it is read again after it', async () => {
      const { store, findByIdAndName } = slowInsert([7n], []);

      const creating = createPlants([{ id: 7n, name: 'Moss' }], store);
      await vi.advanceTimersByTimeAsync(150);

      expect((await creating).map(({ status }) => status)).toEqual([400]);
      expect(findByIdAndName).toHaveBeenCalledTimes(2);
      expect(findByIdAndName).toHaveBeenLastCalledWith([{ id: 7n, name: 'Moss' }]);
    });

    it('When a batch holds more than 16 plants, then nothing is read beside its insert', async () => {
      const { store, findByIdAndName } = slowInsert([], []);
      const plants = Array.from({ length: 17 }, (_, index) => ({
        id: BigInt(index),
        name: 'Fern',
      }));

      const creating = createPlants(plants, store);
      await vi.advanceTimersByTimeAsync(150);
      await creating;

      expect(findByIdAndName).not.toHaveBeenCalled();
    });
  });
});
