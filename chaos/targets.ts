import {
  changeFigures,
  duringChanges,
  largest,
  p99,
  slowAnswerMs,
  type Change,
  type ChangeFigures,
} from './figures.ts';
import { GRAY_TARGETS, type Observed } from './gray-targets.ts';
import type { Answer } from './traffic.ts';
import { isOutage } from './verdict.ts';

export const VISIBLE_SCENARIOS = [
  'mixed',
  'scale',
  'rolling',
  'broker',
  'writer-kill',
  'gateways',
] as const;
/** Faults a process cannot see from inside (docs/failure-modes.md, "Gray faults"). */
export const GRAY_SCENARIOS = [
  'store-cut-one',
  'store-down-all',
  'store-slow',
  'store-half-open',
  'broker-blackhole-gateway',
  'writer-frozen',
  'reply-slow',
] as const;
export const SCENARIOS = [...VISIBLE_SCENARIOS, ...GRAY_SCENARIOS] as const;
export type Scenario = (typeof SCENARIOS)[number];
export type GrayScenario = (typeof GRAY_SCENARIOS)[number];

export function isGray(scenario: Scenario): scenario is GrayScenario {
  return (GRAY_SCENARIOS as readonly string[]).includes(scenario);
}

export interface Target {
  target: string;
  met: boolean;
  measured: string;
}

/** What a scenario promises its clients (docs/how-to/run-chaos.md). */
export interface TargetInput {
  scenario: Scenario;
  load: readonly Answer[];
  changes: readonly Change[];
  /** Partitions held by the writer each change killed, by the change's name (writer-kill). */
  killedPartitions?: ReadonlyMap<string, readonly number[]>;
  /** The URL of the gateway each change killed, by the change's name (gateways). */
  killedGateways?: ReadonlyMap<string, string>;
  /** The command partition a request's id is produced to. */
  partitionOf?: (answer: Answer) => number;
  /** What the gray scenarios' targets read besides the answers. */
  observed?: Observed;
}

export const LIMITS = {
  /** scale, rolling: p99 while a change is under way. */
  changeP99Ms: 1_000,
  /** broker: share of requests that may fail. */
  brokerFailedShare: 0.01,
  brokerRecoveryMs: 10_000,
  writerKillRecoveryMs: 3_000,
} as const;

export function targetsOf(input: TargetInput): Target[] {
  const { load, changes, scenario } = input;
  if (isGray(scenario)) {
    if (input.observed === undefined || input.partitionOf === undefined)
      throw new Error(`${scenario}'s targets need what the run observed and each partition`);
    return GRAY_TARGETS[scenario]({
      load,
      changes,
      partitionOf: input.partitionOf,
      ...input.observed,
    });
  }
  const outages = load.filter(isOutage).length;
  const figures = changeFigures(load, changes, slowAnswerMs(load, changes));
  const slowestRecovery = largest(figures.map(({ recoveredAfterMs }) => recoveredAfterMs));
  switch (scenario) {
    case 'mixed':
      return [];
    case 'scale':
    case 'rolling': {
      const during = duringChanges(load, changes);
      const changeP99 = p99(during);
      return [
        {
          target: 'every request answered 200 or 4009 (no 503, no 504, no dropped connection)',
          met: outages === 0,
          measured: `${String(outages)} of ${String(load.length)} answered 503/504/none`,
        },
        {
          target: `p99 ≤ ${seconds(LIMITS.changeP99Ms)} during the changes`,
          met: changeP99 <= LIMITS.changeP99Ms,
          measured: `p99 ${String(changeP99)} ms over the ${String(during.length)} requests in flight during them`,
        },
      ];
    }
    case 'broker':
      return [
        {
          target: `at most ${String(LIMITS.brokerFailedShare * 100)} % of requests answered 503/504`,
          met: outages <= LIMITS.brokerFailedShare * load.length,
          measured: `${String(outages)} of ${String(load.length)} (${percent(outages, load.length)})`,
        },
        {
          target: `recovers within ${seconds(LIMITS.brokerRecoveryMs)}`,
          met: slowestRecovery <= LIMITS.brokerRecoveryMs,
          measured: `slowest recovery ${seconds(slowestRecovery)}`,
        },
      ];
    case 'gateways': {
      const { killed, elsewhere } = failedAtKilledGateways(input);
      return [
        {
          target:
            'every request answered 200 or 4009, except those in flight at a gateway when it was killed',
          met: elsewhere === 0,
          measured: `${String(elsewhere)} others answered 503/504/none; ${String(killed)} in flight at the killed gateway failed`,
        },
      ];
    }
    case 'writer-kill': {
      const elsewhere = failedElsewhere(input, figures);
      return [
        {
          target: "only requests waiting on the killed writer's partitions fail",
          met: elsewhere === 0,
          measured: `${String(elsewhere)} of ${String(outages)} failed requests were on other partitions`,
        },
        {
          target: `recovers within ${seconds(LIMITS.writerKillRecoveryMs)}`,
          met: slowestRecovery <= LIMITS.writerKillRecoveryMs,
          measured: `slowest recovery ${seconds(slowestRecovery)}`,
        },
      ];
    }
  }
}

/** Failed requests no kill explains: outside every kill's window, or on a partition it did not hold. */
function failedElsewhere(input: TargetInput, figures: readonly ChangeFigures[]): number {
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

/**
 * Failed requests a gateway's kill explains (sent to it before the kill, ended after it), and the
 * others.
 */
function failedAtKilledGateways(input: TargetInput): { killed: number; elsewhere: number } {
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

function seconds(ms: number): string {
  return `${String(ms / 1_000)} s`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0 %' : `${((100 * part) / whole).toFixed(2)} %`;
}
