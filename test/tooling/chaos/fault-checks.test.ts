import { tmpdir } from 'node:os';
import { describe, expect, inject, it } from 'vitest';
import { FaultNotMade } from '#chaos/scenarios/fault-not-made.ts';
import { assertFilled, assertStoreRefusesInserts } from '#chaos/scenarios/visible/disk-full.ts';
import { freePort } from '#local/provision/ports.ts';

describe('the disk-full scenarios check that their fault took', () => {
  it('When the filled folder still has space, then the run ends as a fault not made, naming the folder', () => {
    expect(() => {
      assertFilled('store-disk-full', tmpdir());
    }).toThrow(FaultNotMade);
    expect(() => {
      assertFilled('store-disk-full', tmpdir());
    }).toThrow(
      new RegExp(
        `^chaos store-disk-full: FAULT NOT MADE: ${tmpdir()} still has \\d+ bytes free after the ballast filled it; no target was judged$`,
      ),
    );
  });

  it('When the store keeps storing inserts after the fill, then the run ends as a fault not made', async () => {
    const check = assertStoreRefusesInserts(
      'store-disk-full',
      inject('mongoUri'),
      '/filled',
      2_500,
    );

    await expect(check).rejects.toThrow(FaultNotMade);
    await expect(check).rejects.toThrow(
      /^chaos store-disk-full: FAULT NOT MADE: the store stored all [23] inserts in 2.5 s after \/filled was filled: its data is not there; no target was judged$/,
    );
  });

  it('When the store refuses an insert, then the fault took', async () => {
    const nowhere = `mongodb://127.0.0.1:${String(await freePort())}/?directConnection=true`;

    await expect(
      assertStoreRefusesInserts('store-disk-full', nowhere, '/filled', 2_500),
    ).resolves.toBeUndefined();
  });
});
