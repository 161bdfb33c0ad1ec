import { statfsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { MongoClient } from 'mongodb';
import type { Answer } from '../../observe/traffic.ts';
import { durationOf, largest, type Change } from '../../report/figures.ts';
import { isOutage } from '../../report/verdict.ts';
import { FaultNotMade } from '../fault-not-made.ts';
import type { Target } from '../scenario.ts';
import { seconds } from './targets.ts';

/**
 * The longest a create may wait for its answer while a disk is full: the gateway's reply timeout
 * (5 s), and what a loaded 2-core machine adds to it.
 */
export const ANSWERED_WITHIN_MS = 6_500;
/** From the space back (the broker: from its restart) to a create answered 200 again. */
export const ANSWERED_AGAIN_MS = 60_000;
/**
 * How long the disk stays full: long enough for its alert to fire (PlantStoreStoreRefusesWrites
 * after 30 s of refused inserts; PlantStoreKafkaUnreachable a minute after the services noticed).
 */
export const FULL_FOR_MS = 90_000;

/**
 * What clients are promised while a data folder is full and after: it shows (creates answered
 * 503/504, or the run tested nothing), each answer comes within ANSWERED_WITHIN_MS and is
 * 200/4009/503/504, never a 500 nor a dropped connection, from the fill to the end of `recovery`;
 * and creates are answered 200 again within ANSWERED_AGAIN_MS of `recovery` starting.
 */
export function diskFullTargets(
  load: readonly Answer[],
  changes: readonly Change[],
  names: { fault: string; recovery: string },
): Target[] {
  const fault = changes.find(({ name }) => name === names.fault);
  const recovery = changes.find(({ name }) => name === names.recovery);
  if (fault === undefined || recovery === undefined)
    throw new Error(
      `a disk-full scenario makes the changes "${names.fault}" and "${names.recovery}"`,
    );
  const during = load.filter(
    ({ startedAt, endedAt }) => endedAt >= fault.at && startedAt <= recovery.doneAt,
  );
  const outages = during.filter(isOutage).length;
  const wrong = during.filter(
    (answer) => answer.failure !== undefined || (answer.status >= 500 && !isOutage(answer)),
  ).length;
  const longest = largest(during.map(durationOf));
  const againAfter =
    load
      .filter(({ status, endedAt }) => status === 200 && endedAt >= recovery.at)
      .reduce((first, { endedAt }) => Math.min(first, endedAt), Infinity) - recovery.at;
  return [
    {
      target: 'the full disk refuses creates: some answered 503/504 while it lasts',
      met: outages > 0,
      measured: `${String(outages)} of ${String(during.length)} answered 503/504`,
    },
    {
      target: `while it lasts, every create answered 200, 4009, 503 or 504 within ${seconds(ANSWERED_WITHIN_MS)} (no other 5xx, none unanswered)`,
      met: wrong === 0 && longest <= ANSWERED_WITHIN_MS,
      measured: `${String(wrong)} answered otherwise or not at all; longest ${String(longest)} ms`,
    },
    {
      target: `a create answered 200 within ${seconds(ANSWERED_AGAIN_MS)} of "${names.recovery}"`,
      met: againAfter <= ANSWERED_AGAIN_MS,
      measured: Number.isFinite(againAfter)
        ? `after ${(againAfter / 1_000).toFixed(1)} s`
        : 'no create answered 200 after it',
    },
  ];
}

/** The filesystem of `dir` has no byte left after the fill, or the scenario's fault did not take. */
export function assertFilled(scenario: string, dir: string): void {
  const { bavail, bsize } = statfsSync(dir);
  if (bavail > 0)
    throw new FaultNotMade(
      scenario,
      `${dir} still has ${String(bavail * bsize)} bytes free after the ballast filled it`,
    );
}

/**
 * How long inserts may still be stored once the store's disk is full: PostgreSQL writes into the
 * WAL segment and the pages it already has until it needs a new one, which the load soon does.
 */
const REFUSED_WITHIN_MS = 30_000;
/** Where the probe inserts go: not the plants, which the verdict reads. */
const PROBE = { database: 'chaos_probe', collection: 'disk_full' };

/**
 * Inserts a document into the store of `uri` once a second until one is refused (or is not
 * answered within 10 s); throws FaultNotMade when every insert is stored for `withinMs`: the
 * store's data is not on the filesystem that was filled.
 */
export async function assertStoreRefusesInserts(
  scenario: string,
  uri: string,
  filled: string,
  withinMs = REFUSED_WITHIN_MS,
): Promise<void> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 5_000, socketTimeoutMS: 10_000 });
  const probes = client.db(PROBE.database).collection(PROBE.collection);
  const until = Date.now() + withinMs;
  let stored = 0;
  try {
    while (Date.now() < until) {
      const refused = await probes.insertOne({ at: new Date() }).then(
        () => false,
        () => true,
      );
      if (refused) return;
      stored++;
      await sleep(1_000);
    }
  } finally {
    await client.close().catch(() => undefined);
  }
  throw new FaultNotMade(
    scenario,
    `the store stored all ${String(stored)} inserts in ${String(withinMs / 1_000)} s after ${filled} was filled: its data is not there`,
  );
}
