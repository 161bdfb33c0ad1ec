import { MongoClient } from 'mongodb';
import type { StoredPlant } from '../report/verdict.ts';

/** Every plant in the store once the run is over, by id, for the verdict. */
export async function storedPlants(uri: string): Promise<Map<bigint, StoredPlant>> {
  const client = await new MongoClient(uri, { useBigInt64: true }).connect();
  try {
    const documents = await client
      .db('plantstore')
      .collection<{ _id: bigint; name: string; tag?: string }>('plants')
      .find({}, { projection: { createdAt: 0 } })
      .toArray();
    return new Map(documents.map(({ _id, ...plant }) => [_id, plant]));
  } finally {
    await client.close();
  }
}
