import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { attachGateway } from '../support/servers/gateway.ts';
import { aPlant } from '../support/clients/plants.ts';
import { serviceProcesses, writerHealthUrl } from '../support/servers/services.ts';
import { PARTITIONS, startTestWriter } from '../support/servers/writer.ts';

describe('A writer process stopped with SIGTERM under load', () => {
  it('When SIGTERM reaches one of two writers, then it finishes and commits its batch, exits 0, and the other takes over every partition with no request lost', async () => {
    const harness = await startTestWriter({ writer: false });
    const services = serviceProcesses(harness);
    const stopping = await services.startWriter('writer-a');
    await services.startWriter('writer-b');
    const { post } = await attachGateway(harness, { replyTimeoutMs: 15_000 });
    const admin = harness.kafka.admin();
    await admin.connect();

    const answers = new Map<
      bigint,
      { status: number; body: unknown; startedAt: number; ms: number }
    >();
    let loading = true;
    const client = async () => {
      while (loading) {
        const plant = aPlant();
        const startedAt = Date.now();
        const response = await post(plant.body);
        answers.set(plant.id, {
          status: response.statusCode,
          body: response.json(),
          startedAt,
          ms: Date.now() - startedAt,
        });
      }
    };
    const load = Promise.all(Array.from({ length: 16 }, client));
    await expect.poll(() => answers.size, { timeout: 30_000 }).toBeGreaterThan(300);

    const health = writerHealthUrl(stopping);
    expect((await fetch(`${health}/readyz`)).status).toBe(200);
    const signalledAt = Date.now();
    stopping.kill('SIGTERM');
    const exit = await stopping.exited;
    const exitedAt = Date.now();
    let takenOverAt = 0;
    await expect
      .poll(
        async () => {
          const [group] = (await admin.describeGroups([services.groupId])).groups;
          takenOverAt = Date.now();
          return group?.state === 'Stable' ? group.members.length : 0;
        },
        { interval: 20, timeout: 10_000 },
      )
      .toBe(1);
    const answeredAtTakeover = answers.size;
    await expect
      .poll(() => answers.size, { timeout: 30_000 })
      .toBeGreaterThan(answeredAtTakeover + 300);
    loading = false;
    await load;
    const ends = await admin.fetchTopicOffsets(harness.topics.create);
    const committedOffsets = async () => {
      const [committed] = await admin.fetchOffsets({
        groupId: services.groupId,
        topics: [harness.topics.create],
      });
      return committed?.partitions.map(({ partition, offset }) => [partition, offset]).sort();
    };
    // The last answers are committed just after they are sent.
    await expect
      .poll(committedOffsets, { timeout: 10_000 })
      .toEqual(ends.map(({ partition, high }) => [partition, high]).sort());
    await admin.disconnect();
    const stored = await harness.db
      .collection<{ _id: bigint; name: string }>('plants')
      .find({})
      .toArray();

    console.log(
      `writer exited ${String(exitedAt - signalledAt)} ms after SIGTERM; the other owned every partition ${String(takenOverAt - exitedAt)} ms after that; slowest create ${String(Math.max(...[...answers.values()].map(({ ms }) => ms)))} ms`,
    );
    expect(exit).toEqual({ code: 0, signal: null });
    expect(readFileSync(stopping.logFile, 'utf8')).toContain(
      'stopping: finishing the batch in hand, committing, leaving the group',
    );
    expect([...answers.values()].filter(({ status }) => status !== 200)).toEqual([]);
    for (const [id, { body }] of answers) expect(body).toEqual(aPlant({ id }).answer);
    expect(
      stored.map(({ _id, name }) => [_id, name]).sort(([a], [b]) => Number(a) - Number(b)),
    ).toEqual(
      [...answers.keys()].sort((a, b) => Number(a - b)).map((id) => [id, aPlant({ id }).name]),
    );
    expect(ends).toHaveLength(PARTITIONS);
  });
});
