import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { onTestFinished } from 'vitest';
import { provisionFerretDb, startFerretDb } from '../../deploy/local/ferretdb.ts';
import type { MongoServer } from '../../deploy/local/mongo-server.ts';
import { cacheRoot } from '../../deploy/local/paths.ts';
import { freePort } from '../../deploy/local/ports.ts';
import { temporaryDirectory } from './local-servers.ts';

/** A FerretDB of this test's own that can be stopped and started again on the same data. */
export async function ownStore() {
  const dir = await temporaryDirectory();
  const binary = await provisionFerretDb(cacheRoot(), join(dir, 'provision.log'));
  const options = {
    dir: join(dir, 'data'),
    port: await freePort(),
    logFile: join(dir, 'mongo.log'),
  };
  let server: MongoServer = await startFerretDb(binary, options);
  // As the writer's entry point does: a store that is down fails an insert within 5 s.
  const client = new MongoClient(server.uri, {
    useBigInt64: true,
    serverSelectionTimeoutMS: 5_000,
  });
  // As the writer's entry point does too. A client first used while its server is down connects
  // on that use, and a failed first connect closes the topology under operations already waiting.
  await client.connect();
  onTestFinished(async () => {
    await client.close();
    await server.stop();
  });
  return {
    db: client.db('plantstore'),
    stop: () => server.stop(),
    async start() {
      server = await startFerretDb(binary, options);
    },
  };
}
