import { MongoClient } from 'mongodb';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { plantBody } from '../closed-loop/load.ts';

const BATCH = 10_000;

/**
 * Writes `count` plants with ids from `firstId` straight into the store, as the writer stores
 * them, so that retries of them are duplicates the writer must read back.
 */
export async function preloadPlants(uri: string, firstId: bigint, count: number): Promise<void> {
  const client = await new MongoClient(uri, { useBigInt64: true }).connect();
  try {
    const plants = client.db('plantstore').collection<StoredPlant>('plants');
    const createdAt = new Date();
    for (let start = 0; start < count; start += BATCH) {
      const documents = Array.from({ length: Math.min(BATCH, count - start) }, (_, index) => {
        const id = firstId + BigInt(start + index);
        const { name, tag } = JSON.parse(plantBody(id)) as { name: string; tag: string };
        return { _id: id, name, tag, createdAt };
      });
      await plants.insertMany(documents, { ordered: false });
      if ((start + BATCH) % 100_000 === 0) console.log(`preload: ${start + BATCH} plants`);
    }
  } finally {
    await client.close();
  }
}

/** The plants in the store. */
export async function documentsStored(uri: string): Promise<number> {
  const client = await new MongoClient(uri).connect();
  try {
    return await client.db('plantstore').collection('plants').countDocuments();
  } finally {
    await client.close();
  }
}
