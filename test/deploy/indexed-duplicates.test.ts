import { MongoClient } from 'mongodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { findPostgresBinaries } from '#local/store/postgres-binaries.ts';
import { startLocalStack } from '#local/stack.ts';
import { plantStore, type StoredPlant } from '#writer/store/plant-store.ts';
import {
  localServersUnavailable,
  OWN_STACK_TIMEOUT_MS,
  temporaryDirectory,
} from '../support/servers/local-servers.ts';

const unavailable =
  localServersUnavailable ??
  (process.env.CI !== 'true' && findPostgresBinaries() === null
    ? 'needs PostgreSQL server binaries'
    : null);
const PLANTS = 20_000;
/** Ids beyond 2^53, which FerretDB cannot push down exactly (Snowflake-style ids are all there). */
const BEYOND_2_53 = 1n << 60n;

/** Every node of a PostgreSQL plan as FerretDB's `explain` returns it. */
function nodesOf(plan: unknown): PlanNode[] {
  if (typeof plan !== 'object' || plan === null) return [];
  const node = plan as PlanNode & { Plans?: unknown[]; Plan?: unknown };
  return [
    ...(node['Node Type'] === undefined ? [] : [node]),
    ...nodesOf(node.Plan),
    ...(node.Plans ?? []).flatMap(nodesOf),
  ];
}

const GIN_INDEXES = ['plants_id_jsonb_path', 'plants_name_jsonb_path'];

interface PlanNode {
  'Node Type'?: string;
  'Index Name'?: string;
}

describe.skipIf(unavailable)(
  'Duplicates on the default local store',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the store holds many plants, then the writer reads a duplicate by _id and name equality and PostgreSQL answers it from an index, not a scan, for ids beyond 2^53 too', async () => {
      const stack = await startLocalStack({ dir: await temporaryDirectory() });
      onTestFinished(() => stack.stop());
      const client = new MongoClient(stack.mongoUri, { useBigInt64: true, monitorCommands: true });
      onTestFinished(() => client.close());
      const db = client.db('plantstore');
      for (let start = 0; start < PLANTS; start += 5_000) {
        await db.collection<StoredPlant>('plants').insertMany(
          Array.from({ length: 5_000 }, (_, index) => ({
            // Half of them beyond 2^53.
            _id: BigInt(start + index) + (index % 2 === 0 ? 0n : BEYOND_2_53),
            name: `Plant ${start + index}`,
            createdAt: new Date(),
          })),
        );
      }
      const filters: unknown[] = [];
      client.on('commandStarted', (event) => {
        if (event.commandName === 'find')
          filters.push((event.command as { filter: unknown }).filter);
      });

      const keys = [
        { id: 4_242n, name: 'Plant 4242' },
        { id: BEYOND_2_53 + 17_017n, name: 'Plant 17017' },
        { id: BEYOND_2_53 + 17_019n, name: 'Another name' },
        { id: 99_999_999n, name: 'Plant 99999999' },
      ];
      const found = await plantStore(db).findByIdAndName(keys);
      const plans = await Promise.all(
        keys.map(async ({ id, name }) => {
          const explained = (await db.command({
            explain: { find: 'plants', filter: { _id: id, name } },
          })) as { queryPlanner: unknown };
          return nodesOf(explained.queryPlanner);
        }),
      );

      expect(stack.mongoServer).toBe('FerretDB v1.24.2 on PostgreSQL');
      expect(found).toEqual(
        new Map([
          [4_242n, { name: 'Plant 4242' }],
          [BEYOND_2_53 + 17_017n, { name: 'Plant 17017' }],
        ]),
      );
      // One equality find per pair, in parallel, so in any order; never one `$in`.
      expect(filters).toHaveLength(keys.length);
      expect(filters).toEqual(
        expect.arrayContaining(keys.map(({ id, name }) => ({ _id: id, name }))),
      );
      // Read from the GIN indexes of the provisioning: for ids beyond 2^53, FerretDB's own btree on
      // `_id` would serve only its "every id beyond 2^53", which is half the store here.
      for (const plan of plans) {
        expect(plan.map((node) => node['Node Type'])).not.toContain('Seq Scan');
        const indexes = plan.flatMap((node) => node['Index Name'] ?? []);
        expect(indexes.length).toBeGreaterThan(0);
        expect(indexes.filter((name) => !GIN_INDEXES.includes(name))).toEqual([]);
      }
    });
  },
);
