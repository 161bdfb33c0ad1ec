import { describe, expect, it, vi } from 'vitest';
import { createPlants, type KnownOutcomes } from '../../services/writer/src/store/create-plants.ts';
import type { PlantStore } from '../../services/writer/src/store/plant-store.ts';

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
});
