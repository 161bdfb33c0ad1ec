import { describe, expect, it, onTestFinished } from 'vitest';
import { metric } from '../support/checks/metrics.ts';
import { aPlant } from '../support/clients/plants.ts';
import { PARTITIONS, startTestWriter, type WriterHarness } from '../support/servers/writer.ts';

/** A new plant's command, asking for its reply on `partition`. */
function sendAskingFor(harness: WriterHarness, partition: number) {
  const plant = aPlant();
  return harness.sendCommand(String(plant.id), plant.body, partition);
}

describe('A writer replying on a topic whose partitions were added while it ran', () => {
  it('When a command asks for a reply on a new partition, then the writer reads the partitions again and replies there instead of giving the reply up, and the next command is answered', async () => {
    const harness = await startTestWriter();
    const admin = harness.kafka.admin();
    await admin.connect();
    onTestFinished(() => admin.disconnect());
    const replyOffsets = async () =>
      new Map(
        (await admin.fetchTopicOffsets(harness.topics.replies)).map(({ partition, high }) => [
          partition,
          Number(high),
        ]),
      );
    // The first reply to a topic goes out on a producer of its own; the second on the writer's
    // producer, which then holds the topic's 3 partitions.
    await sendAskingFor(harness, 0);
    await expect.poll(async () => (await replyOffsets()).get(0), { timeout: 15_000 }).toBe(1);
    await sendAskingFor(harness, 0);
    await expect.poll(async () => (await replyOffsets()).get(0), { timeout: 15_000 }).toBe(2);

    await admin.createPartitions({
      topicPartitions: [{ topic: harness.topics.replies, count: PARTITIONS + 1 }],
    });
    await sendAskingFor(harness, PARTITIONS);
    await sendAskingFor(harness, 0);

    await expect
      .poll(async () => Object.fromEntries(await replyOffsets()), { timeout: 15_000 })
      .toMatchObject({ 0: 3, [PARTITIONS]: 1 });
    expect(metric(await harness.scrape(), 'plant_store_writer_undeliverable_replies_total')).toBe(
      0,
    );
  });
});
