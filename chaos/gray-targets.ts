import type { Change } from './figures.ts';
import { changeFigures, durationOf, largest, SLOW_MS } from './figures.ts';
import {
  answeredPerSecond,
  endedWithin,
  exitedProcesses,
  firstEventAfter,
  firstSampleAfter,
  logLinesWithin,
  longestSilentPartition,
  mostInFlight,
  offsetsMovedBack,
  readinessOf,
  rebalancesWithin,
  rssGrowth,
  seconds,
  type Sample,
  type ServiceLogLine,
  type Window,
} from './gray-figures.ts';
import type { GrayScenario, Target } from './targets.ts';
import type { LogEvent } from './timeline.ts';
import type { Answer } from './traffic.ts';
import { isOutage } from './verdict.ts';

/** The process each one-process fault is put on; its gateway is index 0 of the clients' rotation. */
export const FAULTED_WRITER = 'writer-1';
export const FAULTED_GATEWAY = 'gateway-1';
const FAULTED_GATEWAY_INDEX = 0;

/** What a gray run saw besides the answers. */
export interface Observed {
  samples: readonly Sample[];
  /** The writers' group's rebalances, from the coordinator's log. */
  rebalances: readonly LogEvent[];
  serviceLogs: readonly ServiceLogLine[];
  loadStartedAt: number;
  loadEndedAt: number;
  connections: number;
  sessionTimeoutMs: number;
  replyTimeoutMs: number;
  maxInFlight: number;
}

/** A gray scenario's changes: its fault (store-slow: two), then the heal. */
export interface GrayInput extends Observed {
  load: readonly Answer[];
  changes: readonly Change[];
  partitionOf: (answer: Answer) => number;
}

export const LIMITS = {
  notReadyMs: 10_000,
  /** store-cut-one: from then on, no 504 and at least half the creates per second. */
  takenOverMs: 15_000,
  backAfterHealMs: 15_000,
  rebalancesPerChange: 2,
  answeredAgainMs: 10_000,
  rssGrowth: 1.2,
  /** store-slow: 1 s each way makes a store round trip 2 s; each client waits on one. */
  storeRoundTripMs: 2_000,
  /** store-half-open: socketTimeoutMS (3 s) plus a retry on another connection, with room. */
  stalledOperationMs: 10_000,
  halfOpenLast504Ms: 20_000,
  /** The gateway's own timer starts once the request is read: a loaded machine adds this much. */
  answerSlackMs: 500,
  /** writer-frozen: after SIGCONT. */
  rejoinMs: 30_000,
} as const;

const CONSUMER_RESTART = /restart/i;
const FALSE_STALL = /stopped checking the server|giving up its partitions/;

export const GRAY_TARGETS: Record<GrayScenario, (input: GrayInput) => Target[]> = {
  'store-cut-one'(input) {
    const { cut, heal, end } = phases(input);
    const takenOver = cut.from + LIMITS.takenOverMs;
    const late = input.load.filter((answer) => isOutage(answer) && answer.endedAt > takenOver);
    const before = answeredPerSecond(input.load, { from: input.loadStartedAt, to: cut.from });
    const after = answeredPerSecond(input.load, { from: takenOver, to: heal.from });
    const notReady = firstSampleAfter(
      input.samples,
      cut.from,
      (sample) => readinessOf(sample, FAULTED_WRITER) !== 'ready',
    );
    const back = firstSampleAfter(input.samples, heal.from, backInFullGroup);
    return [
      within(`${FAULTED_WRITER} not ready`, notReady, LIMITS.notReadyMs, 'the cut'),
      {
        target: `no 503/504 later than ${seconds(LIMITS.takenOverMs)} after the cut`,
        met: late.length === 0,
        measured: `${String(late.filter(({ endedAt }) => endedAt < heal.from).length)} before the heal, ${String(late.filter(({ endedAt }) => endedAt >= heal.from).length)} after it`,
      },
      {
        target: `creates answered per second from ${seconds(LIMITS.takenOverMs)} after the cut ≥ 50 % of before it`,
        met: after >= 0.5 * before,
        measured: `${after.toFixed(0)}/s against ${before.toFixed(0)}/s`,
      },
      within(
        `${FAULTED_WRITER} ready and the group stable with 3 members`,
        back,
        LIMITS.backAfterHealMs,
        'the heal',
      ),
      ...rebalanceTargets(input, { cut, heal: { from: heal.from, to: end } }),
    ];
  },

  'store-down-all'(input) {
    const { cut, heal, end } = phases(input);
    const answeredAgain = input.load.find(
      ({ status, endedAt }) => status === 200 && endedAt >= heal.from,
    );
    return [
      noExits(input),
      {
        target: `at most ${String(LIMITS.rebalancesPerChange)} rebalances of the group per outage`,
        met: rebalancesWithin(input.rebalances, { from: cut.from, to: end }) <= 2,
        measured: `${String(rebalancesWithin(input.rebalances, { from: cut.from, to: end }))} from the outage to the end of the load`,
      },
      within(
        'a create answered 200',
        answeredAgain === undefined ? undefined : answeredAgain.endedAt - heal.from,
        LIMITS.answeredAgainMs,
        'the heal',
      ),
    ];
  },

  'store-slow'(input) {
    const [slow, slower, heal] = input.changes;
    if (slow === undefined || slower === undefined || heal === undefined)
      throw new Error('store-slow needs three changes: 1 s, 3 s, the heal');
    const first = { from: slow.at, to: slower.at };
    const answered = endedWithin(input.load, first);
    const outages = answered.filter(isOutage).length;
    const longest = largest(answered.map(durationOf));
    const rate = answeredPerSecond(input.load, first);
    const allowed = input.connections / (LIMITS.storeRoundTripMs / 1_000);
    const restarts = logLinesWithin(input.serviceLogs, CONSUMER_RESTART, first);
    const stalls = logLinesWithin(input.serviceLogs, FALSE_STALL, first);
    const reconnects = logLinesWithin(input.serviceLogs, /store client reconnected/, first);
    const [healed] = changeFigures(input.load, [heal], SLOW_MS);
    return [
      {
        target: 'at 1 s: no 503/504',
        met: outages === 0,
        measured: `${String(outages)} of ${String(answered.length)}`,
      },
      {
        target: `at 1 s: every create answered within REPLY_TIMEOUT_MS (${seconds(input.replyTimeoutMs)})`,
        met: longest <= input.replyTimeoutMs,
        measured: `longest ${String(longest)} ms`,
      },
      {
        target: `at 1 s: ≥ 50 % of what the closed loop allows (${allowed.toFixed(0)}/s)`,
        met: rate >= 0.5 * allowed,
        measured: `${rate.toFixed(1)}/s`,
      },
      {
        target: 'at 1 s: at most one store reconnect per writer per 10 s',
        met: reconnects.length <= (3 * (first.to - first.from)) / 10_000,
        measured: `${String(reconnects.length)} "store client reconnected" lines`,
      },
      {
        target: 'at 1 s: no consumer restarts, no false "stalled" reconnects or give-ups',
        met: restarts.length === 0 && stalls.length === 0,
        measured: `${String(restarts.length)} restarts, ${String(stalls.length)} stall lines`,
      },
      noExits(input),
      ...rssTargets(input, ['writer-1', 'writer-2', 'writer-3'], {
        from: slower.at,
        to: heal.at,
      }),
      within(
        'normal (no 503/504 or answer over 1 s)',
        healed?.recoveredAfterMs,
        10_000,
        'the heal',
      ),
    ];
  },

  'store-half-open'(input) {
    const { cut } = phases(input);
    const last = cut.from + LIMITS.halfOpenLast504Ms;
    const late = input.load.filter((answer) => isOutage(answer) && answer.endedAt > last);
    const silent = longestSilentPartition(input.load, input.partitionOf, cut);
    return [
      {
        target: `no 503/504 later than ${seconds(LIMITS.halfOpenLast504Ms)} after the fault starts`,
        met: late.length === 0,
        measured: `${String(late.length)} later`,
      },
      {
        target: `a stalled store operation gives up (socketTimeoutMS 3 s) and is retried: no partition without an answered create for over ${seconds(LIMITS.stalledOperationMs)} during the fault`,
        met: silent.ms <= LIMITS.stalledOperationMs,
        measured: `longest ${seconds(silent.ms)} (partition ${String(silent.partition)})`,
      },
    ];
  },

  'broker-blackhole-gateway'(input) {
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
      within(`${FAULTED_GATEWAY}'s /readyz 503`, notReady, LIMITS.notReadyMs, 'the fault'),
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
        LIMITS.answeredAgainMs,
        'the heal',
      ),
    ];
  },

  'writer-frozen'(input) {
    const { cut, heal } = phases(input);
    const moved = firstEventAfter(input.rebalances, cut.from, 'Stabilized group');
    const movedBack = offsetsMovedBack(input.samples);
    const rejoined = firstSampleAfter(input.samples, heal.from, backInFullGroup);
    return [
      within(
        `its partitions moved (the group stable without it)`,
        moved,
        input.sessionTimeoutMs + 2_000,
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
        LIMITS.rejoinMs,
        'SIGCONT',
      ),
    ];
  },

  'reply-slow'(input) {
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

/** The fault (`cut`), the heal (`heal`, to the end of the load), and the load's end. */
/** The faulted writer ready again, in a stable group of all three writers. */
function backInFullGroup(sample: Sample): boolean {
  return (
    readinessOf(sample, FAULTED_WRITER) === 'ready' &&
    sample.group?.stable === true &&
    sample.group.members === 3
  );
}

function phases(input: GrayInput): { cut: Window; heal: Window; end: number } {
  const [fault, heal] = input.changes;
  if (fault === undefined || heal === undefined)
    throw new Error('a gray scenario needs two changes: its fault and the heal');
  return {
    cut: { from: fault.at, to: heal.at },
    heal: { from: heal.at, to: input.loadEndedAt },
    end: input.loadEndedAt,
  };
}

function within(what: string, ms: number | undefined, limit: number, since: string): Target {
  return {
    target: `${what} within ${seconds(limit)} of ${since}`,
    met: ms !== undefined && ms <= limit,
    measured: `after ${seconds(ms)}`,
  };
}

function rebalanceTargets(input: GrayInput, windows: Record<string, Window>): Target[] {
  return Object.entries(windows).map(([name, window]) => {
    const count = rebalancesWithin(input.rebalances, window);
    return {
      target: `at most ${String(LIMITS.rebalancesPerChange)} rebalances of the group after the ${name}`,
      met: count <= LIMITS.rebalancesPerChange,
      measured: String(count),
    };
  });
}

function noExits(input: GrayInput): Target {
  const exited = exitedProcesses(input.samples);
  return {
    target: 'no process exits',
    met: exited.length === 0,
    measured: exited.length === 0 ? 'none' : exited.join(', '),
  };
}

function rssTargets(input: GrayInput, processes: readonly string[], during: Window): Target[] {
  const before = { from: input.loadStartedAt, to: input.changes[0]?.at ?? 0 };
  return processes.map((process) => {
    const growth = rssGrowth(input.samples, process, before, during);
    return {
      target: `${process}'s RSS within ${String(Math.round((LIMITS.rssGrowth - 1) * 100))} % of before`,
      met: growth !== undefined && growth <= LIMITS.rssGrowth,
      measured:
        growth === undefined ? 'not sampled' : `at most ${((growth - 1) * 100).toFixed(0)} % more`,
    };
  });
}

function answeredInTime(input: GrayInput, longestMs: number): Target {
  const limit = input.replyTimeoutMs + LIMITS.answerSlackMs;
  return {
    target: `${FAULTED_GATEWAY} answers within REPLY_TIMEOUT_MS (+ ${String(LIMITS.answerSlackMs)} ms for the loaded machine)`,
    met: longestMs <= limit,
    measured: `longest ${String(longestMs)} ms`,
  };
}

function inFlightTarget(input: GrayInput, window: Window): Target {
  const most = mostInFlight(input.load, FAULTED_GATEWAY_INDEX, window);
  return {
    target: `requests waiting on ${FAULTED_GATEWAY} ≤ MAX_IN_FLIGHT (${String(input.maxInFlight)})`,
    met: most <= input.maxInFlight,
    measured: `at most ${String(most)}`,
  };
}
