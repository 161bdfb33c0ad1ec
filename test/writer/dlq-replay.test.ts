import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import { projectRoot } from '#local/provision/paths.ts';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { commandsPublished } from '../support/servers/gateway.ts';
import { replyHeaders, startTestWriter, type WriterHarness } from '../support/servers/writer.ts';

const DLQ_MAIN = join(projectRoot, 'services', 'writer', 'src', 'dlq', 'main.ts');

/** `npm run dlq -- <args>` on the harness's topics: its JSON lines and its summary line. */
async function dlq(harness: WriterHarness, ...args: string[]) {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [DLQ_MAIN, ...args], {
    env: {
      ...process.env,
      KAFKA_BROKERS: inject('kafkaBrokers'),
      KAFKA_CREATE_TOPIC: harness.topics.create,
      KAFKA_REPLY_TOPIC: harness.topics.replies,
      KAFKA_DLQ_TOPIC: harness.topics.dlq,
    },
  });
  return {
    letters: stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>),
    summary: stderr.trim().split('\n').at(-1),
  };
}

describe('npm run dlq', () => {
  it('When invalid commands were refused, then list shows each with its error, and a replay without --yes sends nothing', async () => {
    const harness = await startTestWriter();
    await harness.sendCommand('10', '{"id": 10}');
    await harness.sendCommand('11', '{"id": 11,');
    await harness.received(harness.topics.dlq, 2);

    const listed = await dlq(harness, 'list');
    const dryRun = await dlq(harness, 'replay', '--error', '4001');

    expect(listed.summary).toBe(`2 dead letters on ${harness.topics.dlq}`);
    expect(
      listed.letters
        .map(({ key, value, error }) => ({ key, value, error }))
        .sort((a, b) => String(a.key).localeCompare(String(b.key))),
    ).toEqual([
      { key: '10', value: '{"id": 10}', error: 4000 },
      { key: '11', value: '{"id": 11,', error: 4001 },
    ]);
    expect(dryRun.letters.map(({ key }) => key)).toEqual(['11']);
    expect(dryRun.summary).toBe(
      `1 dead letters would be replayed to ${harness.topics.create}; add --yes to replay them`,
    );
    expect(await commandsPublished(harness)).toBe(2);
  });

  it('When a dead letter is valid under today’s writer, then replay --yes stores it, asks for no reply, and one still invalid becomes a dead letter again marked as a replay', async () => {
    const harness = await startTestWriter();
    // Refused by an earlier writer version: the bytes are a valid command today.
    await harness.producer.send({
      topic: harness.topics.dlq,
      messages: [
        {
          key: '12',
          value: '{"id": 12, "name": "Fern"}',
          headers: {
            ...replyHeaders(harness.topics.replies, replyPartitionHeader(0)),
            'x-request-id': 'req-12',
            'error-code': '4000',
            'error-message': 'Body must have required properties tag',
          },
        },
      ],
    });
    await harness.sendCommand('13', '{"id": 13}');
    await harness.received(harness.topics.dlq, 2);

    const replay = await dlq(harness, 'replay', '--error', '4000', '--yes');

    expect(replay.summary).toBe(
      `2 dead letters replayed to ${harness.topics.create}; those still invalid are dead letters again`,
    );
    const commands = await harness.received(harness.topics.create, 3);
    const replayed = commands.find(({ message }) => message.key?.toString() === '12')?.message;
    expect(replayed?.value?.toString()).toBe('{"id": 12, "name": "Fern"}');
    expect(Object.keys(replayed?.headers ?? {}).sort()).toEqual([
      'x-dlq-replay-of',
      'x-request-id',
    ]);
    const dlq13 = (await harness.received(harness.topics.dlq, 3)).at(-1)?.message;
    expect(dlq13?.key?.toString()).toBe('13');
    expect(dlq13?.headers?.['x-dlq-replay-of']?.toString()).toMatch(/^\d+:\d+$/);
    await expect
      .poll(() =>
        harness.db
          .collection<StoredPlant>('plants')
          .findOne({ _id: 12n }, { projection: { _id: 0, name: 1 } }),
      )
      .toEqual({ name: 'Fern' });
    // Only the original command of 13 asked for a reply; the replays answered nobody.
    expect(await harness.received(harness.topics.replies, 1)).toHaveLength(1);
  });
});
