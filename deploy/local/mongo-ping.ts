import { MongoClient } from 'mongodb';

/** With `caFile`, over TLS trusting that CA. */
export function mongoUri(host: string, port: number, caFile?: string): string {
  const tls = caFile === undefined ? '' : `&tls=true&tlsCAFile=${encodeURIComponent(caFile)}`;
  return `mongodb://${host}:${port}/?directConnection=true${tls}`;
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
