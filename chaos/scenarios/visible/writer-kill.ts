import type { ChangeFigures } from '../../report/figures.ts';
import { isOutage } from '../../report/verdict.ts';
import type { VisibleInput, VisibleScenario } from '../scenario.ts';
import { figuresOf, seconds, slowestRecovery } from './targets.ts';

const RECOVERY_MS = 3_000;

/** The oldest writer SIGKILLed three times: only requests on its partitions may fail. */
export const writerKill: VisibleScenario = {
  name: 'writer-kill',
  gray: false,
  writers: 3,
  gateways: 2,

  async steps({ fleet, change, killedPartitions }) {
    for (const round of [1, 2, 3]) {
      const name = `SIGKILL the oldest writer (${String(round)}/3), start a new one`;
      await change(name, async () => {
        killedPartitions.set(name, await fleet.replaceWriter(0, 'SIGKILL'));
      });
    }
  },

  targets(input) {
    const figures = figuresOf(input.load, input.changes);
    const outages = input.load.filter(isOutage).length;
    const elsewhere = failedElsewhere(input, figures);
    const slowest = slowestRecovery(figures);
    return [
      {
        target: "only requests waiting on the killed writer's partitions fail",
        met: elsewhere === 0,
        measured: `${String(elsewhere)} of ${String(outages)} failed requests were on other partitions`,
      },
      {
        target: `recovers within ${seconds(RECOVERY_MS)}`,
        met: slowest <= RECOVERY_MS,
        measured: `slowest recovery ${seconds(slowest)}`,
      },
    ];
  },
};

/** Failed requests no kill explains: outside every kill's window, or on a partition it did not hold. */
function failedElsewhere(input: VisibleInput, figures: readonly ChangeFigures[]): number {
  const { partitionOf, killedPartitions } = input;
  if (partitionOf === undefined || killedPartitions === undefined)
    throw new Error('writer-kill targets need the partitions of each killed writer');
  const explained = new Set(
    figures.flatMap(({ change, answers }) => {
      const held = killedPartitions.get(change.name) ?? [];
      return answers.filter((answer) => held.includes(partitionOf(answer)));
    }),
  );
  return input.load.filter((answer) => isOutage(answer) && !explained.has(answer)).length;
}
