import { MongoClient } from 'mongodb';
import type { PostgresServer } from './postgres.ts';

// The writer declares no index of its own: MongoDB serves these reads from `_id`, and the GIN
// indexes below are PostgreSQL's, under FerretDB, which no MongoDB command creates. So what the
// local store indexes is known here, with the writer's default database and collection names.

/** The writer's default database and collection (MONGODB_DATABASE), which local stacks index. */
const PLANTS = { database: 'plantstore', collection: 'plants' };

/** The fields a duplicate is read by, and their indexes. */
const LOOKUP_INDEXES = [
  ['_id', `${PLANTS.collection}_id_jsonb_path`],
  ['name', `${PLANTS.collection}_name_jsonb_path`],
] as const;

/**
 * FerretDB pushes a find by `_id` down as `_jsonb -> '_id' @> …`, which its own btree on
 * `_jsonb -> '_id'` cannot serve: every duplicate read scanned the collection. A GIN index with
 * `jsonb_path_ops` serves that containment: 1–5 ms per read at 300,000 plants instead of 45 ms,
 * growing with the store (docs/decisions/0029-duplicates-read-by-index.md, "Duplicates are read by `_id` equality, one find per
 * id, and the local store indexes them"). Ids beyond ±2^53 it pushes down only as "every id beyond
 * 2^53", so the writer reads a duplicate by id and name, and the name has the same kind of index.
 * Without GIN's pending list (`fastupdate`), which every read scans until it is merged: about 1 ms
 * instead of 6–7 ms at 200,000 plants under inserts. FerretDB names the table, so the collection
 * is created first and its table read from FerretDB's metadata.
 */
export async function indexPlantLookups(
  uri: string,
  postgres: Pick<PostgresServer, 'sql'>,
): Promise<string> {
  const client = new MongoClient(uri);
  try {
    const db = client.db(PLANTS.database);
    const exists = await db.listCollections({ name: PLANTS.collection }).hasNext();
    if (!exists) await db.createCollection(PLANTS.collection);
  } finally {
    await client.close();
  }
  const table = postgres.sql(
    `SELECT _jsonb ->> 'table' FROM "${PLANTS.database}"._ferretdb_database_metadata ` +
      `WHERE _jsonb ->> '_id' = '${PLANTS.collection}'`,
  );
  if (!/^\w+$/.test(table)) throw new Error(`FerretDB has no table for ${PLANTS.collection}`);
  for (const [field, index] of LOOKUP_INDEXES) {
    postgres.sql(
      `CREATE INDEX IF NOT EXISTS ${index} ON "${PLANTS.database}".${table} ` +
        `USING gin ((_jsonb -> '${field}') jsonb_path_ops) WITH (fastupdate = off)`,
    );
    // Stores made before fastupdate was turned off keep their index: turn it off there too.
    postgres.sql(`ALTER INDEX "${PLANTS.database}".${index} SET (fastupdate = off)`);
  }
  return `"${PLANTS.database}".${table}`;
}
