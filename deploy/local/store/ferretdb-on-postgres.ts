import { dirname, join } from 'node:path';
import { freePort } from '../provision/ports.ts';
import { startFerretDb } from './ferretdb.ts';
import type { MongoServer, MongoServerOptions } from './mongo-server.ts';
import { indexPlantLookups } from './plant-lookup-indexes.ts';
import { startPostgres } from './postgres.ts';
import { reachableByServiceUser } from './postgres-relocation.ts';

/**
 * FerretDB with its data in a PostgreSQL of its own (`<dir>/postgres`, or a folder in the system's
 * temporary directory named after it when the `postgres` user cannot reach `dir`, as under a
 * `mktemp -d` clone), with the plants collection's `_id` indexed; stops both.
 */
export async function startFerretDbOnPostgres(
  binary: string,
  options: MongoServerOptions,
): Promise<MongoServer> {
  const postgres = await startPostgres({
    dir: postgresFolderOf(options.dir),
    port: await freePort(),
    logFile: join(dirname(options.logFile), 'postgres.log'),
  });
  try {
    const ferretDb = await startFerretDb(binary, options, {
      handler: 'postgresql',
      url: postgres.url,
    });
    const plantsTable = await indexPlantLookups(ferretDb.uri, postgres);
    return {
      uri: ferretDb.uri,
      process: ferretDb.process,
      backend: postgres.process,
      settle: () => {
        postgres.sql(`VACUUM (ANALYZE) ${plantsTable}`);
        postgres.sql('CHECKPOINT');
        return Promise.resolve();
      },
      stop: async () => {
        await ferretDb.stop();
        await postgres.stop();
      },
    };
  } catch (error) {
    await postgres.stop();
    throw error;
  }
}

/** Where the PostgreSQL of a store in `storeDir` keeps its data: under it, or relocated. */
export function postgresFolderOf(storeDir: string): string {
  return reachableByServiceUser(join(storeDir, 'postgres'));
}
