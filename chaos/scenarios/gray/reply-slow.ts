import { durationOf, largest } from '../../report/figures.ts';
import { endedWithin, logLinesWithin } from '../../report/gray-figures.ts';
import type { GrayScenario } from '../scenario.ts';
import { provedSlow } from './fault-proofs.ts';
import { FAULT_MS, FAULTED_GATEWAY, FAULTED_GATEWAY_INDEX } from './steps.ts';
import { answeredInTime, CONSUMER_RESTART, inFlightTarget, phases } from './targets.ts';

/** 3 s on one gateway's replies from Kafka: its waits stay bounded, its consumer in its group. */
export const replySlow: GrayScenario = {
  name: 'reply-slow',
  gray: true,

  async steps({ links, change }) {
    const kafka = links.kafka(FAULTED_GATEWAY);
    await change(`3 s on ${FAULTED_GATEWAY}'s replies (Kafka → gateway)`, async () => {
      await kafka.add({ type: 'latency', stream: 'downstream', attributes: { latency: 3_000 } });
      await provedSlow(replySlow.name, `${FAULTED_GATEWAY}'s path from Kafka`, kafka, 3_000);
    });
    await change(`heal ${FAULTED_GATEWAY}'s path`, () => kafka.heal(), FAULT_MS);
  },

  targets(input) {
    const { cut } = phases(input);
    const faulted = endedWithin(input.load, cut).filter(
      ({ gateway }) => gateway === FAULTED_GATEWAY_INDEX,
    );
    const restarts = logLinesWithin(input.serviceLogs, CONSUMER_RESTART, cut, FAULTED_GATEWAY);
    return [
      answeredInTime(input, largest(faulted.map(durationOf))),
      inFlightTarget(input, cut),
      {
        target: `${FAULTED_GATEWAY}'s reply consumer stays in its group (no restart logged)`,
        met: restarts.length === 0,
        measured: `${String(restarts.length)} restart lines`,
      },
    ];
  },
};
