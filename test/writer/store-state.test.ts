import { describe, expect, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { json, replyHeaders, startTestWriter } from '../support/servers/writer.ts';

describe('Writer storage', () => {
  it('When a plant is created, then it is stored once as { _id: Int64, name, tag, createdAt } without unknown fields', async () => {
    const writer = await startTestWriter();

    await writer.sendCommand(
      '9007199254740993',
      '{"id": 9007199254740993, "name": "Calathea", "tag": "prayer", "price": 12}',
    );
    await writer.received(writer.topics.replies, 1);

    const stored = await writer.db.collection<StoredPlant>('plants').find().toArray();
    expect(stored.map(({ createdAt, ...plant }) => plant)).toEqual([
      { _id: 9007199254740993n, name: 'Calathea', tag: 'prayer' },
    ]);
    expect(stored[0]?.createdAt).toBeInstanceOf(Date);
  });

  it('When a command asks for no reply, then the plant is stored all the same', async () => {
    const writer = await startTestWriter();

    await writer.producer.send({
      topic: writer.topics.create,
      messages: [{ key: '8', value: '{"id": 8, "name": "Pothos"}' }],
    });

    await expect
      .poll(() => writer.db.collection<StoredPlant>('plants').findOne({ _id: 8n }), {
        timeout: 10_000,
      })
      .toMatchObject({ _id: 8n, name: 'Pothos' });
  });

  it('When 20 commands for one id with different names arrive together, then exactly one is stored and every answer agrees with it', async () => {
    const writer = await startTestWriter();
    const names = Array.from({ length: 20 }, (_, index) => `Plant ${index % 4}`);

    await writer.producer.send({
      topic: writer.topics.create,
      messages: names.map((name) => ({
        key: '300',
        value: JSON.stringify({ id: 300, name }),
        headers: replyHeaders(writer.topics.replies, replyPartitionHeader(0)),
      })),
    });

    const replies = (await writer.received(writer.topics.replies, 20)).map(json);
    const stored = await writer.db.collection<StoredPlant>('plants').find({ _id: 300n }).toArray();
    expect(stored).toHaveLength(1);
    const winner = stored[0]?.name;
    expect(replies).toEqual(
      names.map((name) =>
        name === winner
          ? { status: 200, plant: { name } }
          : {
              status: 400,
              error: {
                error: 4009,
                message: 'A plant with id 300 already exists with a different name or tag',
              },
            },
      ),
    );
  });
});
