import { MongoClient } from 'mongodb';

export function mongoUri(host: string, port: number): string {
  return `mongodb://${host}:${port}/?directConnection=true`;
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
