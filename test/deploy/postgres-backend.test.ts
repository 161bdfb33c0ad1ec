import { chmod } from 'node:fs/promises';
import { MongoClient } from 'mongodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { findPostgresBinaries } from '#local/store/postgres-binaries.ts';
import { startLocalStack } from '#local/stack.ts';
import {
  localServersUnavailable,
  OWN_STACK_TIMEOUT_MS,
  temporaryDirectory,
} from '../support/servers/local-servers.ts';
import { childPids, isAlive } from '../support/servers/infra-process.ts';

const unavailable =
  localServersUnavailable ??
  (process.env.CI !== 'true' && findPostgresBinaries() === null
    ? 'needs PostgreSQL server binaries'
    : null);

describe.skipIf(unavailable)(
  'FerretDB on a local PostgreSQL',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the stack starts with store postgresql, then int64 ids round-trip exactly and stopping leaves no server behind', async () => {
      const dir = await temporaryDirectory();
      await chmod(dir, 0o755);
      const stack = await startLocalStack({ dir, store: 'postgresql' });
      onTestFinished(() => stack.stop());
      const servers = childPids(process.pid);
      const client = new MongoClient(stack.mongoUri, { useBigInt64: true });
      const plants = client.db('plantstore').collection<{ _id: bigint; name: string }>('plants');

      await plants.insertOne(
        { _id: 9223372036854775807n, name: 'Monstera' },
        { writeConcern: { w: 'majority' } },
      );
      const stored = await plants.findOne({ _id: 9223372036854775807n });
      await expect(
        plants.insertOne({ _id: 9223372036854775807n, name: 'Other' }),
      ).rejects.toMatchObject({ code: 11000 });
      await client.close();

      expect(stack.mongoServer).toBe('FerretDB v1.24.2 on PostgreSQL');
      expect(stored).toEqual({ _id: 9223372036854775807n, name: 'Monstera' });
      await stack.stop();
      expect(servers.filter(isAlive)).toEqual([]);
    });
  },
);
