import { describe, expect, it } from 'vitest';
import { createLogger } from '../../shared/logger.ts';
import { startWriter } from '../../services/writer/src/writer.ts';
import { uniqueName } from '../support/kafka.ts';
import { json, PARTITIONS, startTestWriter } from '../support/writer.ts';

describe('Writer stopped and started again', () => {
  it('When commands are published while no writer runs, then a writer started later answers them', async () => {
    const harness = await startTestWriter({ writer: false });
    const groupId = uniqueName('writers');
    const options = {
      kafka: harness.kafka,
      db: harness.db,
      topics: harness.topics,
      groupId,
      partitions: PARTITIONS,
      logger: createLogger('writer', 'warn'),
    };
    const firstWriter = await startWriter(options);
    await harness.sendCommand('1', '{"id": 1, "name": "Before"}');
    await harness.received(harness.topics.replies, 1);
    await firstWriter.stop();

    await harness.sendCommand('2', '{"id": 2, "name": "While down"}');
    const secondWriter = await startWriter(options);
    const replies = await harness.received(harness.topics.replies, 2);
    await secondWriter.stop();

    expect(replies.map(json)).toEqual([
      { status: 200, plant: { name: 'Before' } },
      { status: 200, plant: { name: 'While down' } },
    ]);
  });
});
