import { describe, expect, it } from 'vitest';
import { startWriter } from '#writer/writer.ts';
import { json, startTestWriter, writerOptions } from '../support/servers/writer.ts';

describe('Writer stopped and started again', () => {
  it('When commands are published while no writer runs, then a writer started later answers them', async () => {
    const harness = await startTestWriter({ writer: false });
    const options = writerOptions(harness);
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
