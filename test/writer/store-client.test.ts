import { MongoClient, ServerHeartbeatStartedEvent } from 'mongodb';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { watchMonitor } from '#writer/store/store-client.ts';
import { createLogger } from '#shared/logger.ts';
import { uniqueName } from '../support/servers/kafka.ts';

describe('The store client reconnected by its watch', () => {
  it('When its monitor stalls, then the same Db goes on inserting through a new connection', async () => {
    // The monitor's own checks, a minute apart, stay out of the way of the stalled one made here.
    const client = new MongoClient(inject('mongoUri'), {
      useBigInt64: true,
      heartbeatFrequencyMS: 60_000,
    });
    await client.connect();
    const stop = watchMonitor(client, createLogger('writer', 'silent'), 500);
    const db = client.db(uniqueName('test').replaceAll('.', '-'));
    onTestFinished(async () => {
      stop();
      await db.dropDatabase();
      await client.close();
    });
    const plants = db.collection<{ _id: bigint }>('plants');
    await plants.insertOne({ _id: 1n });
    const opened = new Promise((resolve) => client.once('topologyOpening', resolve));

    // A check that starts and never ends, as the driver's stuck monitor's last did.
    client.emit('serverHeartbeatStarted', new ServerHeartbeatStartedEvent());
    await opened;

    await plants.insertOne({ _id: 2n });
    expect(await plants.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 1n }, { _id: 2n }]);
  });
});
