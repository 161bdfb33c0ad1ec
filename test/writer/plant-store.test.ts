import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { plantStore, type StoredPlant } from '#writer/store/plant-store.ts';
import { localServersUnavailable } from '../support/servers/local-servers.ts';
import { ownStore } from '../support/servers/own-store.ts';

/** A database of this test's own, with `stored` already in it as "Earlier". */
async function storeHolding(stored: readonly bigint[]): Promise<Db> {
  const client = new MongoClient(inject('mongoUri'), { useBigInt64: true });
  const db = client.db(`test-${randomUUID()}`);
  onTestFinished(async () => {
    await db.dropDatabase();
    await client.close();
  });
  await db
    .collection<StoredPlant>('plants')
    .insertMany(stored.map((_id) => ({ _id, name: 'Earlier', createdAt: new Date() })));
  return db;
}

const plants = (from: number, count: number) =>
  Array.from({ length: count }, (_, index) => ({
    id: BigInt(from + index),
    name: `Plant ${from + index}`,
  }));

const sorted = (ids: Set<bigint>) => [...ids].sort((a, b) => Number(a - b));

async function expectStoredOnce(db: Db, count: number, earlier: readonly bigint[]) {
  const documents = await db.collection<StoredPlant>('plants').find().toArray();
  expect(documents).toHaveLength(count);
  for (const { _id, name } of documents) {
    expect(name).toBe(earlier.includes(_id) ? 'Earlier' : `Plant ${_id}`);
  }
}

describe('The writer’s store', () => {
  it('When a batch of 300 has stored ids in several of its chunks, then exactly those are reported and every other plant is stored once', async () => {
    const stored = [0n, 1n, 57n, 58n, 120n, 121n, 122n, 180n, 199n, 250n, 298n, 299n];
    const db = await storeHolding(stored);

    const alreadyStored = await plantStore(db).insertNew(plants(0, 300));

    expect(sorted(alreadyStored)).toEqual(stored);
    await expectStoredOnce(db, 300, stored);
  });

  it('When batch after batch meets stored ids, then each reports exactly its own', async () => {
    const stored = [3n, 45n, 52n, 66n, 79n];
    const db = await storeHolding(stored);
    const store = plantStore(db);

    expect(sorted(await store.insertNew(plants(0, 40)))).toEqual([3n]);
    expect(sorted(await store.insertNew(plants(40, 40)))).toEqual([45n, 52n, 66n, 79n]);
    expect(sorted(await store.insertNew(plants(80, 40)))).toEqual([]);
    await expectStoredOnce(db, 120, stored);
  });

  it.skipIf(localServersUnavailable)(
    'When the store goes away under a connected client, then an insert fails instead of reporting every plant new',
    async () => {
      const store = await ownStore();
      await store.stop();

      const inserting = plantStore(store.db).insertNew(plants(1, 30));

      // Refused, not selected, or the pooled connection found closed: whichever comes first.
      await expect(inserting).rejects.toThrow(
        /ECONNREFUSED|Server selection timed out|ended by the other party/,
      );
    },
  );
});
