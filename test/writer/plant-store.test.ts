import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { plantStore, type StoredPlant } from '../../services/writer/src/plant-store.ts';

describe('The writer’s store', () => {
  it('When a batch of 300 has stored ids in several of its chunks, then exactly those are reported and every other plant is stored once', async () => {
    const client = new MongoClient(inject('mongoUri'), { useBigInt64: true });
    const db = client.db(`test-${randomUUID()}`);
    onTestFinished(async () => {
      await db.dropDatabase();
      await client.close();
    });
    const stored = [0n, 1n, 57n, 58n, 120n, 121n, 122n, 180n, 199n, 250n, 298n, 299n];
    await db
      .collection<StoredPlant>('plants')
      .insertMany(stored.map((_id) => ({ _id, name: 'Earlier', createdAt: new Date() })));
    const batch = Array.from({ length: 300 }, (_, index) => ({
      id: BigInt(index),
      name: `Plant ${index}`,
    }));

    const alreadyStored = await plantStore(db).insertNew(batch);

    expect([...alreadyStored].sort((a, b) => Number(a - b))).toEqual(stored);
    const documents = await db.collection<StoredPlant>('plants').find().toArray();
    expect(documents).toHaveLength(300);
    for (const { _id, name } of documents) {
      expect(name).toBe(stored.includes(_id) ? 'Earlier' : `Plant ${_id}`);
    }
  });
});
