import type { VisibleScenario } from '../scenario.ts';

/** Writers stopped and killed, the broker and the store restarted: every answer checked. */
export const mixed: VisibleScenario = {
  name: 'mixed',
  gray: false,
  writers: 3,
  gateways: 2,
  minCreates: true,

  async steps({ stack, fleet, change }) {
    // Replaced writers join at the end: index 0 is always the oldest one.
    await change('SIGTERM the oldest writer, start a new one', async () => {
      await fleet.replaceWriter(0, 'SIGTERM');
    });
    for (const round of [1, 2, 3]) {
      await change(`SIGKILL the oldest writer (${String(round)}/3), start a new one`, async () => {
        await fleet.replaceWriter(0, 'SIGKILL');
      });
    }
    await change('restart the broker', () => stack.restart('kafka'));
    await change('restart the store', () => stack.restart('mongo'));
  },

  // Its verdict is the store's word on every answer, over at least --min-creates creates.
  targets: () => [],
};
