import {
  exitedProcesses,
  mostInFlight,
  readinessOf,
  rebalancesWithin,
  rssGrowth,
  seconds,
  type Window,
} from '../../report/gray-figures.ts';
import type { Sample } from '../../observe/probe.ts';
import type { GrayInput, Target } from '../scenario.ts';
import { FAULTED_GATEWAY, FAULTED_GATEWAY_INDEX, FAULTED_WRITER } from './steps.ts';

/** The limits more than one gray scenario holds to; each scenario's own are in its module. */
export const GRAY_LIMITS = {
  notReadyMs: 10_000,
  rebalancesPerChange: 2,
  answeredAgainMs: 10_000,
  rssGrowth: 1.2,
  /** The gateway's own timer starts once the request is read: a loaded machine adds this much. */
  answerSlackMs: 500,
} as const;

export const CONSUMER_RESTART = /restart/i;

/** The fault (`cut`), the heal (`heal`, to the end of the load), and the load's end. */
export function phases(input: GrayInput): { cut: Window; heal: Window; end: number } {
  const [fault, heal] = input.changes;
  if (fault === undefined || heal === undefined)
    throw new Error('a gray scenario needs two changes: its fault and the heal');
  return {
    cut: { from: fault.at, to: heal.at },
    heal: { from: heal.at, to: input.loadEndedAt },
    end: input.loadEndedAt,
  };
}

/** The faulted writer ready again, in a stable group of all three writers. */
export function backInFullGroup(sample: Sample): boolean {
  return (
    readinessOf(sample, FAULTED_WRITER) === 'ready' &&
    sample.group?.stable === true &&
    sample.group.members === 3
  );
}

export function within(what: string, ms: number | undefined, limit: number, since: string): Target {
  return {
    target: `${what} within ${seconds(limit)} of ${since}`,
    met: ms !== undefined && ms <= limit,
    measured: `after ${seconds(ms)}`,
  };
}

export function rebalanceTargets(input: GrayInput, windows: Record<string, Window>): Target[] {
  return Object.entries(windows).map(([name, window]) => {
    const count = rebalancesWithin(input.rebalances, window);
    return {
      target: `at most ${String(GRAY_LIMITS.rebalancesPerChange)} rebalances of the group after the ${name}`,
      met: count <= GRAY_LIMITS.rebalancesPerChange,
      measured: String(count),
    };
  });
}

export function noExits(input: GrayInput): Target {
  const exited = exitedProcesses(input.samples);
  return {
    target: 'no process exits',
    met: exited.length === 0,
    measured: exited.length === 0 ? 'none' : exited.join(', '),
  };
}

export function rssTargets(
  input: GrayInput,
  processes: readonly string[],
  during: Window,
): Target[] {
  const before = { from: input.loadStartedAt, to: input.changes[0]?.at ?? 0 };
  return processes.map((process) => {
    const growth = rssGrowth(input.samples, process, before, during);
    return {
      target: `${process}'s RSS within ${String(Math.round((GRAY_LIMITS.rssGrowth - 1) * 100))} % of before`,
      met: growth !== undefined && growth <= GRAY_LIMITS.rssGrowth,
      measured:
        growth === undefined ? 'not sampled' : `at most ${((growth - 1) * 100).toFixed(0)} % more`,
    };
  });
}

export function answeredInTime(input: GrayInput, longestMs: number): Target {
  const limit = input.replyTimeoutMs + GRAY_LIMITS.answerSlackMs;
  return {
    target: `${FAULTED_GATEWAY} answers within REPLY_TIMEOUT_MS (+ ${String(GRAY_LIMITS.answerSlackMs)} ms for the loaded machine)`,
    met: longestMs <= limit,
    measured: `longest ${String(longestMs)} ms`,
  };
}

export function inFlightTarget(input: GrayInput, window: Window): Target {
  const most = mostInFlight(input.load, FAULTED_GATEWAY_INDEX, window);
  return {
    target: `requests waiting on ${FAULTED_GATEWAY} ≤ MAX_IN_FLIGHT (${String(input.maxInFlight)})`,
    met: most <= input.maxInFlight,
    measured: `at most ${String(most)}`,
  };
}
