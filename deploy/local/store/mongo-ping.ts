import type { StoreUser } from './mongo-server.ts';
import { MongoClient } from 'mongodb';

/** With `caFile`, over TLS trusting that CA; with `user`, signed in as that user. */
export function mongoUri(host: string, port: number, caFile?: string, user?: StoreUser): string {
  const tls = caFile === undefined ? '' : `&tls=true&tlsCAFile=${encodeURIComponent(caFile)}`;
  const credentials =
    user === undefined
      ? ''
      : `${encodeURIComponent(user.name)}:${encodeURIComponent(user.password)}@`;
  const database = user === undefined ? '' : encodeURIComponent(user.database);
  return `mongodb://${credentials}${host}:${port}/${database}?directConnection=true${tls}`;
}

/** Resolves once the server answers a MongoDB `ping`. */
export async function pingMongo(uri: string): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_000 });
  try {
    await client.db('admin').command({ ping: 1 });
  } finally {
    await client.close();
  }
}
