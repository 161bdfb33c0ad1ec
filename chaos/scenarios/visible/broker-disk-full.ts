import { setTimeout as sleep } from 'node:timers/promises';
import type { VisibleScenario } from '../scenario.ts';
import { FaultNotMade } from '../fault-not-made.ts';
import { assertFilled, diskFullTargets, FULL_FOR_MS } from './disk-full.ts';

/** Big enough for the broker's topics and metadata at start, small enough to fill at once. */
const TMPFS_MB = 256;
/** How long Kafka may take to notice its log dir failed and shut the broker down. */
const SHUTDOWN_WITHIN_MS = 30_000;
const FILL = "fill the broker's log dir with a ballast file";
const FREE = 'delete the ballast file';
const RESTART = 'restart the broker';

/**
 * The broker's disk full while creates go on: its first write that fails takes its only log dir
 * offline, and Kafka shuts a broker down whose log dirs have all failed. Space alone does not
 * bring it back: the operator frees it, then restarts the broker
 * (docs/runbooks/plantstorekafkaunreachable.md).
 */
export const brokerDiskFull: VisibleScenario = {
  name: 'broker-disk-full',
  gray: false,
  writers: 3,
  gateways: 2,
  brokers: { count: 1, why: "puts the one broker's log dir on a tmpfs (three would share it)" },
  tmpfs: { folder: 'kafka', sizeMb: TMPFS_MB },
  alerts: [{ alert: 'PlantStoreKafkaUnreachable', before: RESTART }],

  async steps({ stack, tmpfs, change }) {
    if (tmpfs === undefined) throw new Error('broker-disk-full needs the broker on a tmpfs');
    await change(FILL, async () => {
      await tmpfs.fill();
      assertFilled(brokerDiskFull.name, tmpfs.dir);
      const shutDown = await Promise.race([
        stack.kafka.exited.then(() => true),
        sleep(SHUTDOWN_WITHIN_MS).then(() => false),
      ]);
      if (!shutDown)
        throw new FaultNotMade(
          brokerDiskFull.name,
          `the broker still runs ${String(SHUTDOWN_WITHIN_MS / 1_000)} s after its disk filled`,
        );
    });
    await change(FREE, () => tmpfs.free(), FULL_FOR_MS);
    await change(RESTART, () => stack.restart('kafka'), 0);
  },

  targets: ({ load, changes }) =>
    diskFullTargets(load, changes, { fault: FILL, recovery: RESTART }),
};
