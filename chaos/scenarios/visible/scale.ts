import type { VisibleScenario } from '../scenario.ts';
import { unnoticedTargets } from './targets.ts';

/** Writers scaled up and down: the clients should not notice. */
export const scale: VisibleScenario = {
  name: 'scale',
  gray: false,
  writers: 1,
  gateways: 2,

  async steps({ fleet, change }) {
    await change('scale writers 1 → 3', () => fleet.startWriters(2));
    await change('scale writers 3 → 1 (SIGTERM)', async () => {
      await fleet.scaleDownWriters(2);
    });
    await change('scale writers 1 → 3', () => fleet.startWriters(2));
  },

  targets: ({ load, changes }) => unnoticedTargets(load, changes),
};
