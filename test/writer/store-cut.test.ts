import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { startWriter } from '#writer/writer.ts';
import { createLogger } from '#shared/logger.ts';
import { ownToxiproxy, writerBehindStoreLink } from '../support/servers/gray-links.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { aPlant } from '../support/clients/plants.ts';
import {
  json,
  PARTITIONS,
  replyHeaders,
  startTestWriter,
  writerOptions,
} from '../support/servers/writer.ts';

describe.skipIf(localServersUnavailable)(
  'Two writers, one of them cut off from the store (a black hole, Kafka fine)',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the cut lasts, then the cut writer gives its partitions up and says why, the other answers them, and after the path heals it takes partitions again; every command is answered 200 and stored once', async () => {
      const harness = await startTestWriter({ writer: false });
      const settings = writerOptions(harness, { logger: createLogger('writer', 'silent') });
      const { writer: cut, link } = await writerBehindStoreLink(
        await ownToxiproxy(),
        settings,
        'cut-writer',
      );
      const healthy = await startWriter(settings);
      onTestFinished(() => healthy.stop());
      const admin = harness.kafka.admin();
      await admin.connect();
      onTestFinished(() => admin.disconnect());
      const members = async () =>
        (await admin.describeGroups([settings.groupId])).groups[0]?.members.length ?? 0;
      await expect.poll(members, { timeout: 30_000 }).toBe(2);
      await expect
        .poll(() => [cut.notReadyReason(), healthy.notReadyReason()])
        .toEqual([undefined, undefined]);

      // A steady trickle on every partition, so that the healthy writer commits all along.
      const sent: ReturnType<typeof aPlant>[] = [];
      const stopLoad = new AbortController();
      const load = (async () => {
        for (let index = 0; !stopLoad.signal.aborted; index++) {
          const plant = aPlant();
          sent.push(plant);
          await harness.producer.send({
            topic: harness.topics.create,
            messages: [
              {
                partition: index % PARTITIONS,
                key: String(plant.id),
                value: plant.body,
                headers: replyHeaders(harness.topics.replies, replyPartitionHeader(0)),
              },
            ],
          });
          await sleep(50);
        }
      })();
      onTestFinished(async () => {
        stopLoad.abort();
        await load;
      });
      await harness.received(harness.topics.replies, 20);

      await link.faults.blackHole();

      await expect
        .poll(() => cut.notReadyReason(), { timeout: 30_000 })
        .toMatch(/the store does not answer this writer while the others store/);
      await expect.poll(members, { timeout: 30_000 }).toBe(1);
      // The next command, on any partition, is answered promptly by the healthy writer.
      const replied = sent.length;
      await expect
        .poll(async () => (await harness.received(harness.topics.replies, 0)).length, {
          timeout: 10_000,
        })
        .toBeGreaterThan(replied + 2 * PARTITIONS);

      await link.faults.heal();

      await expect.poll(members, { timeout: 30_000 }).toBe(2);
      await expect.poll(() => cut.notReadyReason(), { timeout: 30_000 }).toBeUndefined();
      stopLoad.abort();
      await load;
      const replies = await harness.received(harness.topics.replies, sent.length);
      const answered = new Set(replies.map((reply) => JSON.stringify(json(reply))));
      for (const plant of sent)
        expect(answered).toContain(JSON.stringify({ status: 200, plant: plant.answer }));
      expect(await harness.db.collection<StoredPlant>('plants').countDocuments()).toBe(sent.length);
    });
  },
);
