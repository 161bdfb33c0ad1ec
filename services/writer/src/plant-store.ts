import { MongoBulkWriteError, type Collection, type Db, type WriteError } from 'mongodb';
import type { NewPlant, Plant } from '../../../shared/contracts/plant.ts';
import { plantOf } from '../../../shared/contracts/plant.ts';

const DUPLICATE_KEY = 11000;

export interface StoredPlant {
  _id: bigint;
  name: string;
  tag?: string;
  createdAt: Date;
}

export interface PlantStore {
  /** Inserts every plant whose id is new; returns the ids that were already stored. */
  insertNew(plants: readonly NewPlant[]): Promise<Set<bigint>>;
  findByIds(ids: readonly bigint[]): Promise<Map<bigint, Plant>>;
}

/** The `db` must come from a client created with `useBigInt64: true`. */
export function plantStore(db: Db): PlantStore {
  const plants: Collection<StoredPlant> = db.collection<StoredPlant>('plants');
  return {
    async insertNew(newPlants) {
      if (newPlants.length === 0) return new Set();
      const createdAt = new Date();
      const documents = newPlants.map((plant) => ({ _id: plant.id, ...plantOf(plant), createdAt }));
      try {
        await plants.insertMany(documents, { ordered: false, writeConcern: { w: 'majority' } });
        return new Set();
      } catch (error) {
        return idsAlreadyStored(error, documents);
      }
    },
    // One equality find per id, not one `$in`: FerretDB answers `$in` with a scan of the whole
    // collection on either backend, and `_id` equality from an index on PostgreSQL (DESIGN §6).
    async findByIds(ids) {
      const found = await Promise.all(ids.map((_id) => plants.findOne({ _id })));
      return new Map(
        found.flatMap((stored) => (stored === null ? [] : [[stored._id, plantOf(stored)]])),
      );
    },
  };
}

/** Rethrows anything but duplicate-key failures: those batches must be retried, not answered. */
function idsAlreadyStored(error: unknown, documents: readonly StoredPlant[]): Set<bigint> {
  if (!(error instanceof MongoBulkWriteError)) throw error;
  const writeErrors: WriteError[] = [error.writeErrors].flat();
  if (writeErrors.some((writeError) => writeError.code !== DUPLICATE_KEY)) throw error;
  return new Set(writeErrors.map((writeError) => documents[writeError.index]?._id ?? 0n));
}
