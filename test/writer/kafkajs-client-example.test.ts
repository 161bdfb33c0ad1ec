import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { connectPlantStoreClient } from '../../docs/examples/kafkajs/plant-store-client.ts';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { startTestWriter, type WriterHarness } from '../support/servers/writer.ts';

const run = promisify(execFile);
const EXAMPLE = 'docs/examples/kafkajs/create-plant.ts';

describe('The kafkajs client example (docs/how-to/call-over-kafka.md)', () => {
  it('When it creates a plant with an id beyond 2^53, then the writer answers 200 and stores every digit; the same command again answers 200 and another name 4009', async () => {
    const writer = await startTestWriter();
    const client = await connectPlantStoreClient({
      kafka: writer.kafka,
      commandTopic: writer.topics.create,
      replyTopic: writer.topics.replies,
    });
    onTestFinished(() => client.disconnect());
    const id = 2n ** 53n + 1n;

    const created = await client.createPlant({ id, name: 'Monstera', tag: 'aroid' });
    const again = await client.createPlant({ id, name: 'Monstera', tag: 'aroid' });
    const conflicting = await client.createPlant({ id, name: 'Ficus' });

    expect(created).toEqual({ status: 200, plant: { name: 'Monstera', tag: 'aroid' } });
    expect(again).toEqual(created);
    expect(conflicting).toEqual({
      status: 400,
      error: {
        error: 4009,
        message: 'A plant with id 9007199254740993 already exists with a different name or tag',
      },
    });
    expect(await storedPlants(writer)).toEqual([
      { _id: 9007199254740993n, name: 'Monstera', tag: 'aroid' },
    ]);
  });

  it('When it is run from the command line, then it prints the reply, exits 0, and the plant with id 2^63-1 is stored', async () => {
    const writer = await startTestWriter();

    const { stdout } = await runExample(writer, ['9223372036854775807', 'Calathea', 'prayer']);

    expect(JSON.parse(stdout)).toEqual({
      status: 200,
      plant: { name: 'Calathea', tag: 'prayer' },
    });
    expect(await storedPlants(writer)).toEqual([
      { _id: 9223372036854775807n, name: 'Calathea', tag: 'prayer' },
    ]);
  });

  it('When the command line creates a conflicting plant, then it prints the 4009 reply and exits 1', async () => {
    const writer = await startTestWriter();
    await runExample(writer, ['42', 'Pothos']);

    const failed = await runExample(writer, ['42', 'Fern']).catch(
      (error: unknown) => error as { code: number; stdout: string },
    );

    expect(failed).toMatchObject({ code: 1 });
    expect(JSON.parse(failed.stdout)).toMatchObject({ status: 400, error: { error: 4009 } });
  });
});

function runExample(writer: WriterHarness, args: string[]) {
  return run(process.execPath, [EXAMPLE, ...args], {
    env: {
      ...process.env,
      KAFKA_BROKERS: inject('kafkaBrokers'),
      KAFKA_CREATE_TOPIC: writer.topics.create,
      REPLY_TOPIC: writer.topics.replies,
    },
    timeout: 30_000,
  });
}

async function storedPlants(writer: WriterHarness) {
  const stored = await writer.db.collection<StoredPlant>('plants').find().toArray();
  return stored.map(({ createdAt, ...plant }) => plant);
}
