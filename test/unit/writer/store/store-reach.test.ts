import { MongoBulkWriteError, MongoNetworkTimeoutError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { PlantStore } from '#writer/store/plant-store.ts';
import { reachOf } from '#writer/store/store-reach.ts';

/** A MongoBulkWriteError as the driver makes one for a whole insertMany: no write error in it. */
function bulkWriteError(fields: { message: string; code?: number; codeName?: string }) {
  return Object.assign(Object.create(MongoBulkWriteError.prototype) as MongoBulkWriteError, {
    ...fields,
    writeErrors: [],
  });
}

/** A store whose inserts settle when the test says, on a clock the test moves. */
function storeOnAClock() {
  const clock = { now: 0 };
  const settles: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  const store: PlantStore = {
    insertNew: () =>
      new Promise((resolve, reject) => {
        settles.push({
          resolve: () => {
            resolve(new Set());
          },
          reject,
        });
      }),
    findByIdAndName: () => Promise.resolve(new Map()),
  };
  let pingAnswers = true;
  const watched = reachOf(
    store,
    () => (pingAnswers ? Promise.resolve() : Promise.reject(new Error('timed out'))),
    () => clock.now,
  );
  return {
    ...watched,
    clock,
    settles,
    pingFails: () => {
      pingAnswers = false;
    },
  };
}

describe('What the writer hears from its store', () => {
  it('When an insert waits without an answer, then the store is silent for as long, and an answer ends it', async () => {
    const { store, reach, clock, settles } = storeOnAClock();
    const inserted = store.insertNew([]);
    clock.now = 4_000;
    expect(reach.silentForMs()).toBe(4_000);

    settles[0]?.resolve();
    await inserted;

    expect(reach.silentForMs()).toBe(0);
  });

  it('When inserts time out and are retried, then the silence runs on from the first; an error the server sent ends it', async () => {
    const { store, reach, clock, settles } = storeOnAClock();
    const first = store.insertNew([]);
    clock.now = 3_000;
    settles[0]?.reject(new MongoNetworkTimeoutError('connection timed out'));
    await expect(first).rejects.toThrow('timed out');
    const retried = store.insertNew([]);
    clock.now = 7_000;
    expect(reach.silentForMs()).toBe(7_000);

    settles[1]?.reject(new MongoServerError({ message: 'duplicate key', code: 11000 }));
    await expect(retried).rejects.toThrow('duplicate key');

    expect(reach.silentForMs()).toBe(0);
  });

  it('When a probe is answered, then it says so and ends the silence; when not, it says so', async () => {
    const { store, reach, clock, settles, pingFails } = storeOnAClock();
    void store.insertNew([]).catch(() => undefined);
    clock.now = 6_000;
    settles[0]?.reject(new MongoNetworkTimeoutError('connection timed out'));
    await Promise.resolve();
    expect(reach.silentForMs()).toBe(6_000);

    expect(await reach.probe()).toBe(true);
    expect(reach.silentForMs()).toBe(0);
    pingFails();
    expect(await reach.probe()).toBe(false);
  });

  it('When an insert fails as a bulk write error without a write error of the server (its connection was lost), then the silence runs on', async () => {
    const { store, reach, clock, settles } = storeOnAClock();
    const inserted = store.insertNew([]);
    clock.now = 6_000;
    // How the driver reports an insertMany whose connection timed out: no write error at all.
    const lost = bulkWriteError({ message: 'connection 3 to 127.0.0.1:27017 timed out' });
    settles[0]?.reject(lost);
    await expect(inserted).rejects.toBe(lost);

    expect(reach.silentForMs()).toBe(6_000);
    expect(reach.refusal()).toBeUndefined();
  });

  it('When the server fails an insert as a whole (a full disk), then that is an answer, not a silence, and the store refuses writes until an insert is stored', async () => {
    const { store, reach, clock, settles } = storeOnAClock();
    const first = store.insertNew([]);
    clock.now = 1_000;
    // How the driver reports FerretDB's InternalError for an insertMany: a code, no write error.
    const full = bulkWriteError({
      message: 'could not extend file: No space left on device',
      code: 1,
      codeName: 'InternalError',
    });
    settles[0]?.reject(full);
    await expect(first).rejects.toBe(full);
    expect(reach.silentForMs()).toBe(0);
    const retried = store.insertNew([]);
    clock.now = 8_000;
    settles[1]?.reject(full);
    await expect(retried).rejects.toBe(full);

    expect(reach.refusal()).toEqual({
      forMs: 7_000,
      message: 'could not extend file: No space left on device',
    });
    const stored = store.insertNew([]);
    settles[2]?.resolve();
    await stored;
    expect(reach.refusal()).toBeUndefined();
  });
});
