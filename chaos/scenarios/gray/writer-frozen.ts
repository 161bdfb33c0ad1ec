import { firstEventAfter, firstSampleAfter, offsetsMovedBack } from '../../report/gray-figures.ts';
import type { GrayScenario } from '../scenario.ts';
import { provedStopped } from './fault-proofs.ts';
import { FAULTED_WRITER } from './steps.ts';
import { backInFullGroup, noExits, phases, within } from './targets.ts';

const FROZEN_MS = 30_000;
/** Beyond the writers' session timeout, for the coordinator to move the partitions. */
const MOVED_AFTER_SESSION_MS = 2_000;
/** After SIGCONT. */
const REJOIN_MS = 30_000;

/** One writer stopped (SIGSTOP) for 30 s, alive but silent, then continued. */
export const writerFrozen: GrayScenario = {
  name: 'writer-frozen',
  gray: true,

  async steps({ fleet, change }) {
    const writer = fleet.writers.find(({ name }) => name === FAULTED_WRITER);
    if (writer === undefined) throw new Error(`no ${FAULTED_WRITER} to freeze`);
    await change(`SIGSTOP ${FAULTED_WRITER}`, async () => {
      writer.kill('SIGSTOP');
      await provedStopped(writerFrozen.name, FAULTED_WRITER, writer.pid);
    });
    await change(
      `SIGCONT ${FAULTED_WRITER}`,
      () => {
        writer.kill('SIGCONT');
        return Promise.resolve();
      },
      FROZEN_MS,
    );
  },

  targets(input) {
    const { cut, heal } = phases(input);
    const moved = firstEventAfter(input.rebalances, cut.from, 'Stabilized group');
    const movedBack = offsetsMovedBack(input.samples);
    const rejoined = firstSampleAfter(input.samples, heal.from, backInFullGroup);
    return [
      within(
        `its partitions moved (the group stable without it)`,
        moved,
        input.sessionTimeoutMs + MOVED_AFTER_SESSION_MS,
        'SIGSTOP',
      ),
      {
        target: 'no committed offset moves back',
        met: movedBack === 0,
        measured: `${String(movedBack)} moves back in ${String(input.samples.length)} samples`,
      },
      noExits(input),
      within(
        `${FAULTED_WRITER} ready and the group stable with 3 members`,
        rejoined,
        REJOIN_MS,
        'SIGCONT',
      ),
    ];
  },
};
