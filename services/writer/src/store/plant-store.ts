import { MongoBulkWriteError, type Collection, type Db, type WriteError } from 'mongodb';
import type { NewPlant, Plant } from '#shared/contracts/plant.ts';
import { plantOf } from '#shared/contracts/plant.ts';

const DUPLICATE_KEY = 11000;
/**
 * A batch's plants are inserted in chunks of at least 25, at most 16 chunks at once. FerretDB
 * inserts 100 documents per transaction, and when one of them is a duplicate it inserts those 100
 * again one per transaction: a large batch with one retry among it took several times as long,
 * and every fresh create in the batch waited for it. In chunks of 25 a duplicate costs a fraction
 * of that, and fresh ones as much as before (on FerretDB/PostgreSQL:
 * docs/history/2026-12-03-figures-behind-the-comments.md). Its ordered inserts do not stop
 * at the first duplicate either, so they are no way around it. MongoDB is not slowed by either.
 */
const CHUNK_DOCUMENTS = 25;
const MAX_CHUNKS = 16;

/**
 * @public Exported because the bench, chaos and the tests read the store with it.
 */
export interface StoredPlant {
  _id: bigint;
  name: string;
  tag?: string;
  createdAt: Date;
}

/** What a duplicate is read back by. */
export interface PlantKey {
  id: bigint;
  name: string;
}

export interface PlantStore {
  /** Inserts every plant whose id is new; returns the ids that were already stored. */
  insertNew(plants: readonly NewPlant[]): Promise<Set<bigint>>;
  /** The stored plant of each id whose name is the one given with it (one find per pair). */
  findByIdAndName(keys: readonly PlantKey[]): Promise<Map<bigint, Plant>>;
}

/** The `db` must come from a client created with `useBigInt64: true`. */
export function plantStore(db: Db): PlantStore {
  const plants: Collection<StoredPlant> = db.collection<StoredPlant>('plants');
  const insertChunk = async (documents: StoredPlant[]): Promise<Set<bigint>> => {
    try {
      await plants.insertMany(documents, { ordered: false, writeConcern: { w: 'majority' } });
      return new Set();
    } catch (error) {
      return idsAlreadyStored(error, documents);
    }
  };
  return {
    async insertNew(newPlants) {
      const createdAt = new Date();
      const documents = newPlants.map((plant) => ({ _id: plant.id, ...plantOf(plant), createdAt }));
      const size = Math.max(CHUNK_DOCUMENTS, Math.ceil(documents.length / MAX_CHUNKS));
      const chunks: StoredPlant[][] = [];
      for (let start = 0; start < documents.length; start += size) {
        chunks.push(documents.slice(start, start + size));
      }
      const stored = await Promise.all(chunks.map(insertChunk));
      return new Set(stored.flatMap((ids) => [...ids]));
    },
    // One equality find per pair, not one `$in`: FerretDB answers `$in` with a scan of the whole
    // collection on either backend. It pushes `_id` equality down to PostgreSQL, where an index
    // answers it, but only for ids within ±2^53: beyond, it asks PostgreSQL for every plant
    // beyond and compares them itself (a read that grows with the store:
    // docs/history/2026-12-03-figures-behind-the-comments.md). The name, pushed down exactly and indexed too, narrows that to the plants of that
    // name. MongoDB answers from its `_id` index either way (docs/decisions/0029-duplicates-read-by-index.md, "Duplicates are
    // read by `_id` equality, one find per id, and the local store indexes them").
    async findByIdAndName(keys) {
      const found = await Promise.all(
        keys.map(({ id, name }) => plants.findOne({ _id: id, name })),
      );
      return new Map(
        found.flatMap((stored) => (stored === null ? [] : [[stored._id, plantOf(stored)]])),
      );
    },
  };
}

/**
 * The ids a failed insert found stored already, when duplicates are all that failed: every
 * document inserted or refused as a duplicate, and the write concern met. Anything else is
 * rethrown, for the batch must be retried, not answered. A lost connection also comes as a bulk
 * error, with no write error at all and nothing inserted: that is not "every plant was new".
 */
function idsAlreadyStored(error: unknown, documents: readonly StoredPlant[]): Set<bigint> {
  if (!(error instanceof MongoBulkWriteError)) throw error;
  const writeErrors: WriteError[] = [error.writeErrors].flat();
  const onlyDuplicates =
    writeErrors.length > 0 &&
    writeErrors.every((writeError) => writeError.code === DUPLICATE_KEY) &&
    error.insertedCount + writeErrors.length === documents.length &&
    error.result.getWriteConcernError() === undefined;
  if (!onlyDuplicates) throw error;
  return new Set(writeErrors.map((writeError) => documents[writeError.index]?._id ?? 0n));
}
