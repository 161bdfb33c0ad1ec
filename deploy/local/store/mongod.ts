import { mkdir } from 'node:fs/promises';
import { MongoClient, MongoServerError } from 'mongodb';
import { mongoUri, pingMongo } from './mongo-ping.ts';
import type { MongoServer, MongoServerOptions } from './mongo-server.ts';
import { LOOPBACK } from '../provision/ports.ts';
import { startServerProcess } from '../process/server-process.ts';
import { waitUntilReady } from '../process/wait-until-ready.ts';

const NOT_YET_INITIALIZED = 94;

/** A real `mongod` from PATH, as a single-node replica set so majority writes behave as in production. */
export async function startMongod(
  binary: string,
  options: MongoServerOptions,
): Promise<MongoServer> {
  await mkdir(options.dir, { recursive: true });
  const server = startServerProcess({
    name: 'mongod',
    command: binary,
    args: [
      '--replSet',
      'rs0',
      '--bind_ip',
      LOOPBACK,
      '--port',
      String(options.port),
      '--dbpath',
      options.dir,
    ],
    logFile: options.logFile,
  });
  const uri = mongoUri(LOOPBACK, options.port);
  await waitUntilReady(server, () => pingMongo(uri), 60_000);
  await waitUntilReady(server, () => becomePrimary(uri, options.port), 60_000);
  return { uri, process: server, stop: () => server.stop() };
}

async function becomePrimary(uri: string, port: number): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1_000 });
  try {
    const admin = client.db('admin');
    try {
      await admin.command({ replSetGetStatus: 1 });
    } catch (error) {
      if (!(error instanceof MongoServerError) || error.code !== NOT_YET_INITIALIZED) throw error;
      await admin.command({
        replSetInitiate: { _id: 'rs0', members: [{ _id: 0, host: `${LOOPBACK}:${port}` }] },
      });
    }
    const hello = await admin.command({ hello: 1 });
    if (hello.isWritablePrimary !== true) throw new Error('not primary yet');
  } finally {
    await client.close();
  }
}
