import { MongoClient } from 'mongodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { findPostgresBinaries } from '../../deploy/local/postgres.ts';
import { startLocalStack } from '../../deploy/local/stack.ts';
import { plantStore, type StoredPlant } from '../../services/writer/src/plant-store.ts';
import { localServersUnavailable, temporaryDirectory } from '../support/local-servers.ts';

const unavailable =
  localServersUnavailable ??
  (process.env.CI !== 'true' && findPostgresBinaries() === null
    ? 'needs PostgreSQL server binaries'
    : null);
const PLANTS = 20_000;

/** Every node of a PostgreSQL plan as FerretDB's `explain` returns it. */
function nodeTypes(plan: unknown): string[] {
  if (typeof plan !== 'object' || plan === null) return [];
  const node = plan as { 'Node Type'?: string; Plans?: unknown[]; Plan?: unknown };
  return [
    ...(node['Node Type'] === undefined ? [] : [node['Node Type']]),
    ...nodeTypes(node.Plan),
    ...(node.Plans ?? []).flatMap(nodeTypes),
  ];
}

describe.skipIf(unavailable)('Duplicates on the default local store', () => {
  it('When the store holds many plants, then the writer reads a duplicate by _id equality and PostgreSQL answers it from an index, not a scan', async () => {
    const stack = await startLocalStack({ dir: await temporaryDirectory() });
    onTestFinished(() => stack.stop());
    const client = new MongoClient(stack.mongoUri, { useBigInt64: true, monitorCommands: true });
    onTestFinished(() => client.close());
    const db = client.db('plantstore');
    for (let start = 0; start < PLANTS; start += 5_000) {
      await db.collection<StoredPlant>('plants').insertMany(
        Array.from({ length: 5_000 }, (_, index) => ({
          _id: BigInt(start + index),
          name: `Plant ${start + index}`,
          createdAt: new Date(),
        })),
      );
    }
    const filters: unknown[] = [];
    client.on('commandStarted', (event) => {
      if (event.commandName === 'find') filters.push((event.command as { filter: unknown }).filter);
    });

    const found = await plantStore(db).findByIds([4_242n, 17_017n, 99_999_999n]);
    const explained = (await db.command({
      explain: { find: 'plants', filter: { _id: 4_242n } },
    })) as { queryPlanner: unknown };

    expect(stack.mongoServer).toBe('FerretDB v1.24.2 on PostgreSQL');
    expect(found).toEqual(
      new Map([
        [4_242n, { name: 'Plant 4242' }],
        [17_017n, { name: 'Plant 17017' }],
      ]),
    );
    // One equality find per id, in parallel, so in any order; never one `$in`.
    expect(filters).toHaveLength(3);
    expect(filters).toEqual(
      expect.arrayContaining([{ _id: 4_242n }, { _id: 17_017n }, { _id: 99_999_999n }]),
    );
    expect(nodeTypes(explained.queryPlanner)).toContain('Bitmap Index Scan');
    expect(nodeTypes(explained.queryPlanner)).not.toContain('Seq Scan');
  });
});
