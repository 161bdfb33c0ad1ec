import { isOutage } from '../../report/verdict.ts';
import type { VisibleInput, VisibleScenario } from '../scenario.ts';

/** Gateways scaled 1 → 4 → 1, one of them killed between: only its requests in flight may fail. */
export const gateways: VisibleScenario = {
  name: 'gateways',
  gray: false,
  writers: 3,
  gateways: 1,

  async steps({ fleet, change, killedGateways }) {
    await change('scale gateways 1 → 4', () => fleet.startGateways(3));
    const kill = 'SIGKILL gateway 2 of 4 (started again with its ordinal)';
    await change(kill, async () => {
      killedGateways.set(kill, await fleet.killGateway(1));
    });
    await change('scale gateways 4 → 1 (SIGTERM)', () => fleet.scaleDownGateways(3));
  },

  targets(input) {
    const { killed, elsewhere } = failedAtKilledGateways(input);
    return [
      {
        target:
          'every request answered 200 or 4009, except those in flight at a gateway when it was killed',
        met: elsewhere === 0,
        measured: `${String(elsewhere)} others answered 503/504/none; ${String(killed)} in flight at the killed gateway failed`,
      },
    ];
  },
};

/**
 * Failed requests a gateway's kill explains (sent to it before the kill, ended after it), and the
 * others.
 */
function failedAtKilledGateways(input: VisibleInput): { killed: number; elsewhere: number } {
  const { killedGateways, changes, load } = input;
  if (killedGateways === undefined)
    throw new Error('gateways targets need the URL of each killed gateway');
  const kills = changes.flatMap((change) => {
    const url = killedGateways.get(change.name);
    return url === undefined ? [] : [{ url, at: change.at }];
  });
  const failed = load.filter(isOutage);
  const killed = failed.filter((answer) =>
    kills.some(
      ({ url, at }) => answer.url === url && answer.startedAt <= at && answer.endedAt >= at,
    ),
  ).length;
  return { killed, elsewhere: failed.length - killed };
}
