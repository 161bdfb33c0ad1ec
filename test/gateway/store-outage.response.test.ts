import { describe, expect, it, onTestFinished } from 'vitest';
import { startWriter } from '#writer/writer.ts';
import { createLogger } from '#shared/logger.ts';
import { attachGateway } from '../support/servers/gateway.ts';
import { localServersUnavailable } from '../support/servers/local-servers.ts';
import { ownStore } from '../support/servers/own-store.ts';
import { startTestWriter, writerOptions } from '../support/servers/writer.ts';

describe.skipIf(localServersUnavailable)('Gateway while the store is down', () => {
  it('When the store is down, then 504/5040; after recovery the identical retry answers 200 with the same plant, stored once', async () => {
    const store = await ownStore();
    const harness = await startTestWriter({ writer: false });
    const writer = await startWriter(
      writerOptions(harness, { db: store.db, logger: createLogger('writer', 'silent') }),
    );
    onTestFinished(() => writer.stop());
    const { post } = await attachGateway(harness, { replyTimeoutMs: 2_000 });
    const body = '{"id": 9007199254740993, "name": "Orchid", "tag": "white"}';

    await store.stop();
    const during = await post(body);
    await store.start();
    const retried = await post(body);
    const conflicting = await post('{"id": 9007199254740993, "name": "Other"}');

    expect(during.statusCode).toBe(504);
    expect(during.json()).toEqual({
      error: 5040,
      message:
        'No writer answered within 2000 ms; the outcome is unknown and an identical retry is safe',
    });
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toEqual({ name: 'Orchid', tag: 'white' });
    expect(conflicting.statusCode).toBe(400);
    expect(conflicting.json()).toMatchObject({ error: 4009 });
    expect(
      await store.db
        .collection('plants')
        .find({}, { projection: { createdAt: 0 } })
        .toArray(),
    ).toEqual([{ _id: 9007199254740993n, name: 'Orchid', tag: 'white' }]);
  });
});
