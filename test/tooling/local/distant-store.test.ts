import { MongoClient } from 'mongodb';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { storeReached } from '#local/faults/distant-store.ts';
import {
  localServersUnavailable,
  temporaryDirectory,
} from '../../support/servers/local-servers.ts';

/** A stack of the tests' store, counting its stops. */
function aStack(mongoUri: string) {
  const stack = {
    kafkaBrokers: inject('kafkaBrokers'),
    mongoUri,
    stops: 0,
    stop: () => {
      stack.stops++;
      return Promise.resolve();
    },
  };
  return stack;
}

describe.skipIf(localServersUnavailable)('--store-delay (npm run bench, npm run chaos)', () => {
  it('When the store is 25 ms away each way, then a round trip to it through the URI the variants get takes 50 ms at least, and a principal’s URI keeps its credentials and options', async () => {
    const storeUri = inject('mongoUri');
    const stack = aStack(storeUri);
    const store = await storeReached(stack, 25, await temporaryDirectory());
    onTestFinished(() => store.stop());
    const client = await new MongoClient(store.reach(storeUri)).connect();
    onTestFinished(() => client.close());

    const startedAt = performance.now();
    await client.db('admin').command({ ping: 1 });
    const roundTripMs = performance.now() - startedAt;

    expect(roundTripMs).toBeGreaterThanOrEqual(50);
    const principal = new URL(
      store.reach('mongodb://writer:secret@127.0.0.1:1/plantstore?tls=true'),
    );
    expect([principal.username, principal.password, principal.pathname]).toEqual([
      'writer',
      'secret',
      '/plantstore',
    ]);
    expect(Object.fromEntries(principal.searchParams)).toEqual({
      tls: 'true',
      directConnection: 'true',
    });
    expect(principal.host).toBe(new URL(store.reach(storeUri)).host);
    const { writer, gateway } = await store.connections();
    expect([writer.MONGODB_URI, gateway.MONGODB_URI]).toEqual([store.reach(storeUri), storeUri]);
    await store.stop();
    expect(stack.stops).toBe(1);
  });

  it('When there is no delay, then the variants get the store’s URI as it is', async () => {
    const store = await storeReached(
      aStack('mongodb://127.0.0.1:27017/'),
      0,
      await temporaryDirectory(),
    );

    expect(store.reach('mongodb://127.0.0.1:27017/')).toBe('mongodb://127.0.0.1:27017/');
    expect((await store.connections()).writer.MONGODB_URI).toBe('mongodb://127.0.0.1:27017/');
  });
});
