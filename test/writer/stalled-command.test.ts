import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { plantStore, type StoredPlant } from '#writer/store/plant-store.ts';
import { connectStore, STORE_SOCKET_TIMEOUT_MS } from '#writer/store/store-client.ts';
import { createLogger } from '#shared/logger.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { pausableProxy } from '../support/servers/pausable-proxy.ts';

/** Plants whose insert is far larger than the socket buffers on its way: 25 × 256 KiB. */
const bulky = (from: number) =>
  Array.from({ length: 25 }, (_, index) => ({
    id: BigInt(from + index),
    name: `${String(from + index)} ${'x'.repeat(256 * 1024)}`,
  }));

describe.skipIf(localServersUnavailable)(
  'The writer’s store, on a connection whose path stalls while an insert is written',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the connection times out with the insert’s bytes still queued, then the insert fails within the bound, and the next insert is stored', async () => {
      const uri = new URL(inject('mongoUri'));
      const proxy = await pausableProxy(uri.host);
      uri.host = proxy.address;
      uri.searchParams.set('directConnection', 'true');
      const database = `test-${randomUUID()}`;
      const store = await connectStore(uri.toString(), createLogger('writer', 'silent'), {
        database,
      });
      onTestFinished(async () => {
        proxy.resume();
        await store.client.db(database).dropDatabase();
        await store.close();
      });
      const db = store.client.db(database);
      const plants = plantStore(db);
      await plants.insertNew(bulky(0));

      // Nothing the client writes is taken, and nothing is closed: the bytes pile up.
      proxy.pause();
      const started = Date.now();
      const stalled = plants.insertNew(bulky(100)).then(
        () => 'stored',
        (error: unknown) => error,
      );
      await expect
        .poll(() => Promise.race([stalled, Promise.resolve('waiting')]), {
          timeout: 20_000,
          interval: 250,
        })
        .not.toBe('waiting');
      expect(await stalled).toMatchObject({
        message: expect.stringMatching(
          /^the connection to .+ was closed while a command was still being written to it/,
        ) as unknown,
      });
      // The driver's socket timeout, then its one retry on another connection, also stalled.
      expect(Date.now() - started).toBeLessThan(2 * STORE_SOCKET_TIMEOUT_MS + 2_000);

      proxy.resume();
      const next = Date.now();
      await plants.insertNew([{ id: 1_000n, name: 'After the stall' }]);
      expect(Date.now() - next).toBeLessThan(5_000);
      expect(await db.collection<StoredPlant>('plants').findOne({ _id: 1_000n })).toMatchObject({
        name: 'After the stall',
      });
    });
  },
);
