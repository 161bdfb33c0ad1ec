import { describe, expect, it } from 'vitest';
import type { Change } from '#chaos/report/figures.ts';
import {
  longestSilentPartition,
  mostInFlight,
  offsetsMovedBack,
  readinessChanges,
  rssGrowth,
} from '#chaos/report/gray-figures.ts';
import type { Sample } from '#chaos/observe/probe.ts';
import { brokerBlackholeGateway } from '#chaos/scenarios/gray/broker-blackhole-gateway.ts';
import { storeCutOne } from '#chaos/scenarios/gray/store-cut-one.ts';
import { storeSlow } from '#chaos/scenarios/gray/store-slow.ts';
import type { GrayInput } from '#chaos/scenarios/scenario.ts';
import type { LogEvent } from '#chaos/observe/timeline.ts';
import type { Answer } from '#chaos/observe/traffic.ts';
import { answer, timedOut } from '#test/support/clients/chaos-answers.ts';

const change = (name: string, at: number): Change => ({ name, at, doneAt: at + 10 });

/** One answer every 100 ms from 0 to `to`, through each gateway in turn. */
function steadyLoad(to: number, details: (at: number) => Partial<Answer> = () => ({})): Answer[] {
  return Array.from({ length: to / 100 }, (_, index) =>
    answer(index * 100, index * 100 + 50, { gateway: index % 2, ...details(index * 100) }),
  );
}

function sample(at: number, writer1: Sample['processes'][string], members = 3): Sample {
  return {
    at,
    processes: { 'writer-1': writer1, 'gateway-1': { running: true, ready: 'ready', rssKb: 100 } },
    group: { stable: true, members },
  };
}

function input(overrides: Partial<GrayInput>): GrayInput {
  return {
    load: [],
    changes: [change('fault', 15_000), change('heal', 75_000)],
    partitionOf: () => 0,
    samples: [],
    rebalances: [],
    serviceLogs: [],
    loadStartedAt: 0,
    loadEndedAt: 105_000,
    connections: 32,
    sessionTimeoutMs: 2_000,
    replyTimeoutMs: 5_000,
    maxInFlight: 10_000,
    ...overrides,
  };
}

const rebalance = (at: number): LogEvent => ({
  at,
  text: 'Preparing to rebalance group plant-writers',
});

describe('Gray chaos targets', () => {
  it('When a cut-off writer is out of the group in time and the others answer, then store-cut-one meets every target', () => {
    const load = steadyLoad(105_000, (at) =>
      at >= 15_000 && at < 22_000 && at % 1_000 === 0 ? timedOut : {},
    );
    const samples = [
      sample(14_000, { running: true, ready: 'ready' }),
      sample(21_000, { running: true, ready: 'not ready' }, 2),
      sample(80_000, { running: true, ready: 'ready' }),
    ];
    const targets = storeCutOne.targets(
      input({ load, samples, rebalances: [rebalance(20_000), rebalance(79_000)] }),
    );
    expect(targets.filter(({ met }) => !met)).toEqual([]);
    expect(targets.map(({ measured }) => measured)).toContain('after 6.0 s');
  });

  it('When 504s go on past 15 s after the cut and the writer never comes back, then store-cut-one says which targets are missed', () => {
    const load = steadyLoad(105_000, (at) => (at >= 15_000 && at % 1_000 === 0 ? timedOut : {}));
    const samples = [sample(14_000, { running: true, ready: 'ready' })];
    const targets = storeCutOne.targets(
      input({ load, samples, rebalances: [1, 2, 3].map((n) => rebalance(15_000 + n)) }),
    );
    expect(targets.filter(({ met }) => !met).map(({ target }) => target)).toEqual([
      'writer-1 not ready within 10.0 s of the cut',
      'no 503/504 later than 15.0 s after the cut',
      'writer-1 ready and the group stable with 3 members within 15.0 s of the heal',
      'at most 2 rebalances of the group after the cut',
    ]);
  });

  it('When a gateway answers slowly during its black hole, its twin fails too and its RSS went unsampled before, then those targets are missed', () => {
    const load = [
      answer(16_000, 24_000, { ...timedOut, gateway: 0 }),
      answer(16_000, 17_000, { ...timedOut, gateway: 1 }),
      answer(76_000, 77_000, { gateway: 0 }),
    ];
    const samples: Sample[] = [
      { at: 20_000, processes: { 'gateway-1': { running: true, ready: 'not ready', rssKb: 100 } } },
    ];
    const missed = brokerBlackholeGateway
      .targets(input({ load, samples }))
      .filter(({ met }) => !met)
      .map(({ target }) => target);
    expect(missed).toEqual([
      'gateway-1 answers within REPLY_TIMEOUT_MS (+ 500 ms for the loaded machine)',
      "gateway-1's RSS within 20 % of before",
      'the other gateway unaffected (no 503/504 through it during the fault)',
    ]);
  });

  it('When 10 creates a second are answered at 1 s each way, then store-slow meets half of what the closed loop of 32 clients allows', () => {
    const changes = [change('1 s', 15_000), change('3 s', 75_000), change('heal', 105_000)];
    const load = steadyLoad(140_000);
    const targets = storeSlow.targets(input({ load, changes, loadEndedAt: 140_000 }));
    expect(targets.find(({ target }) => target.includes('closed loop'))).toEqual({
      target: 'at 1 s: ≥ 50 % of what the closed loop allows (16/s)',
      met: true,
      measured: '10.0/s',
    });
  });
});

describe('Gray chaos figures', () => {
  it('When a partition goes unanswered, then its longest silence counts from the window edges too', () => {
    const load = [answer(0, 2_000), answer(0, 3_000, timedOut), answer(0, 9_000)];
    expect(longestSilentPartition(load, () => 2, { from: 1_000, to: 10_000 })).toEqual({
      partition: 2,
      ms: 7_000,
    });
  });

  it('When requests overlap on a gateway, then the most in flight counts only that gateway', () => {
    const load = [answer(0, 10), answer(5, 20), answer(6, 7, { gateway: 1 }), answer(15, 30)];
    expect(mostInFlight(load, 0, { from: 0, to: 100 })).toBe(2);
  });

  it('When a committed offset is seen lower than before, then it is counted as moved back', () => {
    const at = (committed: Record<number, string>, time: number): Sample => ({
      at: time,
      processes: {},
      committed,
    });
    expect(
      offsetsMovedBack([
        at({ 0: '5', 1: '-1' }, 0),
        at({ 0: '7', 1: '3' }, 1),
        at({ 0: '6', 1: '3' }, 2),
      ]),
    ).toBe(1);
  });

  it('When RSS grows, then its growth is the largest during over the mean before; without samples it is unknown', () => {
    const samples = [100, 120, 150].map((rssKb, index) => ({
      at: index * 10,
      processes: { g: { running: true, ready: 'ready' as const, rssKb } },
    }));
    expect(rssGrowth(samples, 'g', { from: 0, to: 15 }, { from: 15, to: 30 })).toBeCloseTo(
      150 / 110,
    );
    expect(rssGrowth(samples, 'other', { from: 0, to: 15 }, { from: 15, to: 30 })).toBeUndefined();
  });

  it('When a process becomes not ready, freezes and exits, then each change of its readiness is listed once', () => {
    const states: Sample['processes'][string][] = [
      { running: true, ready: 'ready' },
      { running: true, ready: 'ready' },
      { running: true, ready: 'not ready' },
      { running: true, ready: 'no answer' },
      { running: false, ready: 'no answer' },
    ];
    const samples = states.map((state, at) => ({ at, processes: { w: state } }));
    expect(readinessChanges(samples).map(({ at, ready }) => `${String(at)} ${ready}`)).toEqual([
      '0 ready',
      '2 not ready',
      '3 no answer',
      '4 exited',
    ]);
  });
});
