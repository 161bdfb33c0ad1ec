import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { SESSION_TIMEOUT_MS, startWriter, type Writer } from '#writer/writer.ts';
import { createLogger } from '#shared/logger.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { ownStore } from '../support/servers/own-store.ts';
import { aPlant } from '../support/clients/plants.ts';
import { json, startTestWriter, writerOptions } from '../support/servers/writer.ts';

/** How many times a writer found the store unavailable and waited for it. */
async function storeRetries(writer: Writer): Promise<number> {
  return (await writer.metrics.storeRetries.get()).values[0]?.value ?? 0;
}

/** Enough plants that every partition has a batch waiting on the store. */
const FERNS = Array.from({ length: 12 }, () => aPlant());

describe.skipIf(localServersUnavailable)(
  'Writer while the store is down',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the store is unreachable, then the command is neither answered nor committed, and after recovery it answers 200', async () => {
      const store = await ownStore();
      const harness = await startTestWriter({ writer: false });
      const writerSettings = writerOptions(harness, {
        db: store.db,
        logger: createLogger('writer', 'silent'),
      });
      const writer = await startWriter(writerSettings);
      onTestFinished(() => writer.stop());

      await store.stop();
      const orchid = aPlant({ name: 'Orchid' });
      await harness.sendCommand(String(orchid.id), orchid.body);
      // The writer has tried the command's batch and found the store down.
      await expect.poll(() => storeRetries(writer), { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      const admin = harness.kafka.admin();
      await admin.connect();
      const [committed] = await admin.fetchOffsets({
        groupId: writerSettings.groupId,
        topics: [harness.topics.create],
      });
      await admin.disconnect();
      expect(committed?.partitions.every(({ offset }) => offset === '-1')).toBe(true);
      expect(await harness.received(harness.topics.replies, 0)).toEqual([]);

      await store.start();
      const [reply] = await harness.received(harness.topics.replies, 1);

      expect(json(reply)).toEqual({ status: 200, plant: orchid.answer });
      expect(
        await store.db.collection<StoredPlant>('plants').countDocuments({ _id: orchid.id }),
      ).toBe(1);
    });

    it('When the store is down longer than the session timeout, then two writers keep their group membership (no rebalance) and answer once it is back', async () => {
      const store = await ownStore();
      const harness = await startTestWriter({ writer: false });
      const settings = writerOptions(harness, {
        db: store.db,
        logger: createLogger('writer', 'silent'),
      });
      const writers = [await startWriter(settings), await startWriter(settings)];
      onTestFinished(() =>
        Promise.all(writers.map((writer) => writer.stop())).then(() => undefined),
      );
      const admin = harness.kafka.admin();
      await admin.connect();
      onTestFinished(() => admin.disconnect());
      const members = async () => {
        const [group] = (await admin.describeGroups([settings.groupId])).groups;
        return {
          state: group?.state,
          ids: (group?.members ?? []).map(({ memberId }) => memberId).sort(),
        };
      };
      await expect.poll(async () => (await members()).ids.length, { timeout: 30_000 }).toBe(2);
      await expect.poll(async () => (await members()).state, { timeout: 30_000 }).toBe('Stable');
      const before = await members();

      await store.stop();
      await Promise.all(FERNS.map((fern) => harness.sendCommand(String(fern.id), fern.body)));
      // Both writers hold batches that found the store down. The claim is about a duration: one
      // session timeout later, a writer whose waiting batch had stopped its heartbeats would have
      // been removed from the group.
      for (const writer of writers) {
        await expect
          .poll(() => storeRetries(writer), { timeout: 30_000 })
          .toBeGreaterThanOrEqual(1);
      }
      await sleep(SESSION_TIMEOUT_MS + 1_000);
      const during = await members();
      await store.start();
      const replies = await harness.received(harness.topics.replies, FERNS.length);

      expect(during).toEqual(before);
      expect(await members()).toEqual(before);
      expect(replies.map(json)).toEqual(
        expect.arrayContaining(FERNS.map((fern) => ({ status: 200, plant: fern.answer }))),
      );
    });
  },
);
