import { durationOf, largest } from '../../report/figures.ts';
import { endedWithin, firstSampleAfter, readinessOf } from '../../report/gray-figures.ts';
import { isOutage } from '../../report/verdict.ts';
import type { GrayScenario } from '../scenario.ts';
import { provedSilent } from './fault-proofs.ts';
import { FAULT_MS, FAULTED_GATEWAY, FAULTED_GATEWAY_INDEX } from './steps.ts';
import {
  answeredInTime,
  GRAY_LIMITS,
  inFlightTarget,
  phases,
  rssTargets,
  within,
} from './targets.ts';

/** One gateway's path to Kafka black-holed: it must say so and keep its waits bounded. */
export const brokerBlackholeGateway: GrayScenario = {
  name: 'broker-blackhole-gateway',
  gray: true,

  async steps({ links, change }) {
    const kafka = links.kafka(FAULTED_GATEWAY);
    const path = `${FAULTED_GATEWAY}'s path to Kafka`;
    await change(`black-hole ${path}`, async () => {
      await kafka.blackHole();
      await provedSilent(brokerBlackholeGateway.name, path, kafka);
    });
    await change(`heal ${FAULTED_GATEWAY}'s path`, () => kafka.heal(), FAULT_MS);
  },

  targets(input) {
    const { cut, heal } = phases(input);
    const faulted = endedWithin(input.load, cut).filter(
      ({ gateway }) => gateway === FAULTED_GATEWAY_INDEX,
    );
    const longest = largest(faulted.map(durationOf));
    const notReady = firstSampleAfter(
      input.samples,
      cut.from,
      (sample) => readinessOf(sample, FAULTED_GATEWAY) === 'not ready',
    );
    const other = endedWithin(input.load, cut).filter(
      (answer) => answer.gateway !== FAULTED_GATEWAY_INDEX && isOutage(answer),
    );
    const throughIt = input.load.find(
      ({ gateway, status, startedAt }) =>
        gateway === FAULTED_GATEWAY_INDEX && status === 200 && startedAt >= heal.from,
    );
    return [
      answeredInTime(input, longest),
      within(`${FAULTED_GATEWAY}'s /readyz 503`, notReady, GRAY_LIMITS.notReadyMs, 'the fault'),
      inFlightTarget(input, cut),
      ...rssTargets(input, [FAULTED_GATEWAY], cut),
      {
        target: 'the other gateway unaffected (no 503/504 through it during the fault)',
        met: other.length === 0,
        measured: `${String(other.length)} 503/504`,
      },
      within(
        `a create through ${FAULTED_GATEWAY} answered 200`,
        throughIt === undefined ? undefined : throughIt.endedAt - heal.from,
        GRAY_LIMITS.answeredAgainMs,
        'the heal',
      ),
    ];
  },
};
