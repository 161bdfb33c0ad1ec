import { describe, expect, it, vi } from 'vitest';
import type { Plant } from '#shared/contracts/plant.ts';
import { knownPlants } from '#writer/store/known-plants.ts';
import type { PlantStore } from '#writer/store/plant-store.ts';

/** A store in which `storedBefore` were stored by someone else. */
function fakeStore(storedBefore: ReadonlyMap<bigint, Plant> = new Map()) {
  const store = {
    insertNew: vi.fn((plants: readonly { id: bigint }[]) =>
      Promise.resolve(new Set(plants.flatMap(({ id }) => (storedBefore.has(id) ? [id] : [])))),
    ),
    findByIdAndName: vi.fn((keys: readonly { id: bigint; name: string }[]) =>
      Promise.resolve(
        new Map(
          keys.flatMap(({ id, name }) => {
            const plant = storedBefore.get(id);
            return plant?.name === name ? [[id, plant] as const] : [];
          }),
        ),
      ),
    ),
  } satisfies PlantStore;
  return store;
}

const options = { max: 2, ttlMs: 60_000 };
const remembered = () => ({ inc: vi.fn() });

describe('Plants a writer knows', () => {
  it('When a plant it inserted is inserted again, then it is reported stored without reaching the store (and counted), and read back from memory under its name only', async () => {
    const store = fakeStore();
    const counted = remembered();
    const known = knownPlants(store, counted, options);

    expect(await known.insertNew([{ id: 1n, name: 'Fern', tag: 'green' }])).toEqual(new Set());
    expect(await known.insertNew([{ id: 1n, name: 'Moss' }])).toEqual(new Set([1n]));
    expect(
      await known.findByIdAndName([
        { id: 1n, name: 'Fern' },
        { id: 1n, name: 'Moss' },
      ]),
    ).toEqual(new Map([[1n, { name: 'Fern', tag: 'green' }]]));
    expect(await known.findByIdAndName([{ id: 1n, name: 'Moss' }])).toEqual(new Map());

    expect(store.insertNew).toHaveBeenCalledTimes(1);
    expect(store.findByIdAndName).not.toHaveBeenCalled();
    expect(counted.inc.mock.calls).toEqual([[1]]);
  });

  it('When an insert finds ids stored by someone else, then they are read from the store, and remembered once found', async () => {
    const store = fakeStore(new Map([[7n, { name: 'Ivy' }]]));
    const known = knownPlants(store, remembered(), options);

    expect(
      await known.insertNew([
        { id: 7n, name: 'Ivy' },
        { id: 8n, name: 'Oak' },
      ]),
    ).toEqual(new Set([7n]));
    expect(await known.findByIdAndName([{ id: 7n, name: 'Other' }])).toEqual(new Map());
    expect(await known.findByIdAndName([{ id: 7n, name: 'Ivy' }])).toEqual(
      new Map([[7n, { name: 'Ivy' }]]),
    );
    expect(await known.findByIdAndName([{ id: 7n, name: 'Other' }])).toEqual(new Map());

    expect(store.insertNew).toHaveBeenCalledTimes(1);
    expect(store.findByIdAndName.mock.calls).toEqual([
      [[{ id: 7n, name: 'Other' }]],
      [[{ id: 7n, name: 'Ivy' }]],
    ]);
  });

  it('When a batch mixes known and new ids, then only the new ones reach the store', async () => {
    const store = fakeStore();
    const known = knownPlants(store, remembered(), options);
    await known.insertNew([{ id: 1n, name: 'Fern' }]);

    expect(
      await known.insertNew([
        { id: 1n, name: 'Fern' },
        { id: 2n, name: 'Oak' },
      ]),
    ).toEqual(new Set([1n]));

    expect(store.insertNew).toHaveBeenLastCalledWith([{ id: 2n, name: 'Oak' }]);
  });

  it('When the store fails an insert or a read, then the failure reaches the caller and nothing is remembered', async () => {
    const store = fakeStore();
    store.insertNew.mockRejectedValueOnce(new Error('store unreachable'));
    store.findByIdAndName.mockRejectedValueOnce(new Error('store unreachable'));
    const known = knownPlants(store, remembered(), options);

    await expect(known.insertNew([{ id: 1n, name: 'Fern' }])).rejects.toThrow('store unreachable');
    await expect(known.findByIdAndName([{ id: 1n, name: 'Fern' }])).rejects.toThrow(
      'store unreachable',
    );
    await known.insertNew([{ id: 1n, name: 'Fern' }]);

    expect(store.insertNew).toHaveBeenCalledTimes(2);
  });

  it('When more plants are known than it may keep, then the least recently used is forgotten and asked of the store again', async () => {
    const store = fakeStore();
    const known = knownPlants(store, remembered(), options);
    await known.insertNew([{ id: 2n, name: 'Oak' }]);
    await known.insertNew([{ id: 3n, name: 'Ivy' }]);
    await known.insertNew([{ id: 4n, name: 'Moss' }]);

    expect(await known.insertNew([{ id: 2n, name: 'Oak' }])).toEqual(new Set());

    expect(store.insertNew).toHaveBeenCalledTimes(4);
  });
});
