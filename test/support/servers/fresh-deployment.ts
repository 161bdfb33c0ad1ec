import { randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { inject, onTestFinished } from 'vitest';
import type { Topics } from '#shared/contracts/kafka.ts';
import { uniqueName } from './kafka.ts';

/** Topics nobody has created yet and a database of the test's own, dropped when it ends. */
export async function freshDeployment(): Promise<{ topics: Topics; db: Db }> {
  const client = await new MongoClient(inject('mongoUri'), { useBigInt64: true }).connect();
  const db = client.db(`start-${randomUUID()}`);
  onTestFinished(async () => {
    await db.dropDatabase();
    await client.close();
  });
  const prefix = uniqueName('start');
  return {
    topics: { create: `${prefix}.create`, replies: `${prefix}.replies`, dlq: `${prefix}.dlq` },
    db,
  };
}
