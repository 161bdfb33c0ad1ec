import { describe, expect, it } from 'vitest';
import { createLogger } from '#shared/logger.ts';
import { ownToxiproxy, writerBehindStoreLink } from '../support/servers/gray-links.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { aPlant } from '../support/clients/plants.ts';
import { json, startTestWriter, writerOptions } from '../support/servers/writer.ts';

describe.skipIf(localServersUnavailable)(
  'A writer that has stored a plant, its store then black-holed',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When the plant is created again, identically and with another name, then both are answered (200 with the plant, 4009) without the store', async () => {
      const harness = await startTestWriter({ writer: false });
      const { link } = await writerBehindStoreLink(
        await ownToxiproxy(),
        writerOptions(harness, { logger: createLogger('writer', 'silent') }),
        'known-plants',
      );
      const plant = aPlant({ tag: 'green' });
      await harness.sendCommand(String(plant.id), plant.body);
      await harness.received(harness.topics.replies, 1);

      await link.faults.blackHole();
      await harness.sendCommand(String(plant.id), plant.body);
      await harness.sendCommand(String(plant.id), plant.with({ name: 'Another' }).body);

      // Without the store, nothing else could answer them while the black hole lasts.
      await expect
        .poll(async () => (await harness.received(harness.topics.replies, 0)).length, {
          timeout: 10_000,
        })
        .toBe(3);
      const replies = await harness.received(harness.topics.replies, 3);
      expect(replies.map(json)).toEqual([
        { status: 200, plant: plant.answer },
        { status: 200, plant: plant.answer },
        {
          status: 400,
          error: {
            error: 4009,
            message: `A plant with id ${String(plant.id)} already exists with a different name or tag`,
          },
        },
      ]);
      await link.faults.heal();
      expect(await harness.db.collection('plants').countDocuments()).toBe(1);
    });
  },
);
