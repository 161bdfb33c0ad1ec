import { describe, expect, it } from 'vitest';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { startTestGateway } from '../support/servers/gateway.ts';
import { aPlant } from '../support/clients/plants.ts';

describe('POST /plants', () => {
  it('When a valid NewPlant is posted, then it answers 200 with the Plant and stores it', async () => {
    const gateway = await startTestGateway();

    const response = await gateway.post(
      '{"id": 9223372036854775807, "name": "Monstera", "tag": "aroid", "price": 3}',
    );

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
    const stored = await gateway.db
      .collection<StoredPlant>('plants')
      .findOne({ _id: 9223372036854775807n });
    expect(stored).toMatchObject({ _id: 9223372036854775807n, name: 'Monstera', tag: 'aroid' });
    expect(stored).not.toHaveProperty('price');
  });

  it('When a plant is posted, then the command on Kafka is keyed by id, carries the reply headers and no unknown field', async () => {
    const gateway = await startTestGateway();

    await gateway.post('{"id": 9007199254740993, "name": "Fern", "color": "green"}', {
      'x-request-id': 'req-1',
    });

    const [command] = await gateway.received(gateway.topics.create, 1);
    expect(command?.message.key?.toString()).toBe('9007199254740993');
    expect(command?.message.value?.toString()).toBe('{"id":9007199254740993,"name":"Fern"}');
    const headers = Object.fromEntries(
      Object.entries(command?.message.headers ?? {}).map(([name, value]) => [
        name,
        value?.toString(),
      ]),
    );
    expect(headers).toMatchObject({
      kafka_replyTopic: gateway.topics.replies,
      'content-type': 'application/json',
      'x-request-id': 'req-1',
      kafka_correlationId: expect.stringMatching(/^[0-9a-f-]{36}$/) as string,
      'x-deadline': expect.stringMatching(/^\d{13}$/) as string,
    });
  });

  it('When /healthz is asked, then it answers 200 without a token', async () => {
    const gateway = await startTestGateway({ writer: false });

    const response = await gateway.request({ method: 'GET', url: '/healthz' });

    expect([response.statusCode, response.json()]).toEqual([200, { status: 'ok' }]);
  });

  it.each(['9007199254740993', '-9223372036854775807'])(
    'When id is %s, then it is stored and answered exactly',
    async (id) => {
      const gateway = await startTestGateway();

      const response = await gateway.post(aPlant({ id: BigInt(id) }).body);

      expect(response.statusCode).toBe(200);
      expect(
        await gateway.db.collection<StoredPlant>('plants').countDocuments({ _id: BigInt(id) }),
      ).toBe(1);
    },
  );

  it('When the same plant is posted again, then it answers 200 again; with another name, 400/4009', async () => {
    const gateway = await startTestGateway();

    const ficus = aPlant({ id: 21, name: 'Ficus' });
    const first = await gateway.post(ficus.body);
    const retry = await gateway.post(ficus.body);
    const conflict = await gateway.post(ficus.with({ name: 'Cactus' }).body);

    expect([first.statusCode, retry.statusCode]).toEqual([200, 200]);
    expect(retry.json()).toEqual(ficus.answer);
    expect(conflict.statusCode).toBe(400);
    expect(conflict.json()).toEqual({
      error: 4009,
      message: 'A plant with id 21 already exists with a different name or tag',
    });
  });

  it('When 20 creates of one id with different names race, then one is stored and every answer agrees with it', async () => {
    const gateway = await startTestGateway();
    const names = Array.from({ length: 20 }, (_, index) => `Name ${index}`);

    const responses = await Promise.all(
      names.map((name) => gateway.post(JSON.stringify({ id: 33, name }))),
    );

    const stored = await gateway.db.collection<StoredPlant>('plants').find({ _id: 33n }).toArray();
    expect(stored).toHaveLength(1);
    const answers = responses.map(
      (response) =>
        [response.statusCode, response.json<{ name?: string; error?: number }>()] as const,
    );
    expect(answers.filter(([status]) => status === 200)).toEqual([
      [200, { name: stored[0]?.name }],
    ]);
    expect(answers.filter(([status, body]) => status === 400 && body.error === 4009)).toHaveLength(
      19,
    );
  });
});
