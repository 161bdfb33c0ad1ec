import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { provisionFerretDb, startFerretDb } from '../../deploy/local/ferretdb.ts';
import { cacheRoot } from '../../deploy/local/paths.ts';
import { freePort } from '../../deploy/local/ports.ts';
import type { StoredPlant } from '../../services/writer/src/plant-store.ts';
import { startWriter } from '../../services/writer/src/writer.ts';
import { createLogger } from '../../shared/logger.ts';
import { localServersUnavailable, temporaryDirectory } from '../support/local-servers.ts';
import { json, startTestWriter, writerOptions } from '../support/writer.ts';

describe.skipIf(localServersUnavailable)('Writer while the store is down', () => {
  it('When the store is unreachable, then the command is neither answered nor committed, and after recovery it answers 200', async () => {
    const dir = await temporaryDirectory();
    const binary = await provisionFerretDb(cacheRoot(), join(dir, 'provision.log'));
    const options = {
      dir: join(dir, 'data'),
      port: await freePort(),
      logFile: join(dir, 'mongo.log'),
    };
    let store = await startFerretDb(binary, options);
    const client = new MongoClient(store.uri, {
      useBigInt64: true,
      serverSelectionTimeoutMS: 60_000,
    });
    const harness = await startTestWriter({ writer: false });
    const writerSettings = writerOptions(harness, {
      db: client.db('plantstore'),
      logger: createLogger('writer', 'silent'),
    });
    const writer = await startWriter(writerSettings);
    onTestFinished(async () => {
      await writer.stop();
      await client.close();
      await store.stop();
    });

    await store.stop();
    await harness.sendCommand('9', '{"id": 9, "name": "Orchid"}');
    // Nothing can be observed happening, so give the writer time to (wrongly) answer or commit.
    await sleep(3_000);
    const admin = harness.kafka.admin();
    await admin.connect();
    const [committed] = await admin.fetchOffsets({
      groupId: writerSettings.groupId,
      topics: [harness.topics.create],
    });
    await admin.disconnect();
    expect(committed?.partitions.every(({ offset }) => offset === '-1')).toBe(true);

    store = await startFerretDb(binary, options);
    const [reply] = await harness.received(harness.topics.replies, 1);

    expect(json(reply)).toEqual({ status: 200, plant: { name: 'Orchid' } });
    expect(
      await client.db('plantstore').collection<StoredPlant>('plants').countDocuments({ _id: 9n }),
    ).toBe(1);
  });
});
