import type { VisibleScenario } from '../scenario.ts';
import {
  assertFilled,
  assertStoreRefusesInserts,
  diskFullTargets,
  FULL_FOR_MS,
} from './disk-full.ts';

/** Big enough for PostgreSQL's data and WAL at start, small enough to fill at once. */
const TMPFS_MB = 256;
const FILL = "fill the store's data folder (PostgreSQL's) with a ballast file";
const FREE = 'delete the ballast file';

/**
 * The store's disk full while creates go on: PostgreSQL stays up and refuses every insert
 * (SQLSTATE 53100), the writers retry; once the ballast is deleted the next retry stores.
 * Nothing is restarted, as docs/runbooks/plantstorestorerefuseswrites.md says.
 */
export const storeDiskFull: VisibleScenario = {
  name: 'store-disk-full',
  gray: false,
  writers: 3,
  gateways: 2,
  tmpfs: { folder: 'mongo', sizeMb: TMPFS_MB },
  alerts: [{ alert: 'PlantStoreStoreRefusesWrites', before: FREE }],

  async steps({ stack, tmpfs, change }) {
    if (tmpfs === undefined) throw new Error('store-disk-full needs the store on a tmpfs');
    await change(FILL, async () => {
      await tmpfs.fill();
      assertFilled(storeDiskFull.name, tmpfs.dir);
      await assertStoreRefusesInserts(storeDiskFull.name, stack.mongoUri, tmpfs.dir);
    });
    await change(FREE, () => tmpfs.free(), FULL_FOR_MS);
  },

  targets: ({ load, changes }) => diskFullTargets(load, changes, { fault: FILL, recovery: FREE }),
};
