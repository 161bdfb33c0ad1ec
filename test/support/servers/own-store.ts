import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { provisionFerretDb, startFerretDb } from '#local/store/ferretdb.ts';
import type { MongoServer } from '#local/store/mongo-server.ts';
import { cacheRoot } from '#local/provision/paths.ts';
import { connectStore } from '#writer/store/store-client.ts';
import { createLogger } from '#shared/logger.ts';
import { freePort } from '#local/provision/ports.ts';
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
  // As the writer's entry point connects, with its timeouts and its watch.
  const store = await connectStore(server.uri, createLogger('writer', 'silent'), {
    database: 'plantstore',
  });
  onTestFinished(async () => {
    await store.close();
    await server.stop();
  });
  return {
    db: store.client.db('plantstore'),
    stop: () => server.stop(),
    async start() {
      server = await startFerretDb(binary, options);
    },
  };
}
