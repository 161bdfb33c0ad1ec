import { randomUUID } from 'node:crypto';
import { MongoClient, type Collection } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';

interface StoredPlant {
  _id: bigint;
  name: string;
}

const client = new MongoClient(inject('mongoUri'), { useBigInt64: true });
const database = client.db(`test-${randomUUID()}`);
let plants: Collection<StoredPlant>;

beforeAll(async () => {
  await client.connect();
  plants = database.collection<StoredPlant>('plants');
});
afterAll(async () => {
  await database.dropDatabase();
  await client.close();
});

const majority = { writeConcern: { w: 'majority' as const } };

describe('MongoDB-protocol server', () => {
  it.each([9223372036854775807n, 9007199254740993n, -9223372036854775808n])(
    'When _id %s is inserted with w: "majority", then it reads back exactly, as an int64',
    async (id) => {
      await plants.insertOne({ _id: id, name: 'Monstera' }, majority);

      const stored = await plants.findOne({ _id: id });

      expect(stored).toEqual({ _id: id, name: 'Monstera' });
      expect(typeof stored?._id).toBe('bigint');
    },
  );

  it('When an _id is inserted twice, then the second insert fails with code 11000 and the first document stays', async () => {
    const id = 9223372036854775806n;
    await plants.insertOne({ _id: id, name: 'Ficus' }, majority);

    await expect(plants.insertOne({ _id: id, name: 'Other' }, majority)).rejects.toMatchObject({
      code: 11000,
    });
    expect(await plants.findOne({ _id: id })).toEqual({ _id: id, name: 'Ficus' });
  });
});
