import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changeFigures, SLOW_MS, slowAnswerMs, type Change } from '#chaos/report/figures.ts';
import { broker } from '#chaos/scenarios/visible/broker.ts';
import { brokerDiskFull } from '#chaos/scenarios/visible/broker-disk-full.ts';
import { ANSWERED_AGAIN_MS, ANSWERED_WITHIN_MS } from '#chaos/scenarios/visible/disk-full.ts';
import { gateways } from '#chaos/scenarios/visible/gateways.ts';
import { rolling } from '#chaos/scenarios/visible/rolling.ts';
import { scale } from '#chaos/scenarios/visible/scale.ts';
import { storeDiskFull } from '#chaos/scenarios/visible/store-disk-full.ts';
import { writerKill } from '#chaos/scenarios/visible/writer-kill.ts';
import { activeController, rebalanceTimeline } from '#chaos/observe/timeline.ts';
import type { Answer } from '#chaos/observe/traffic.ts';
import { answer, timedOut } from '#test/support/clients/chaos-answers.ts';
import { temporaryDirectory } from '#test/support/servers/local-servers.ts';

const change = (name: string, at: number, doneAt = at + 100): Change => ({ name, at, doneAt });

describe('Chaos figures of each change', () => {
  it('When requests fail or slow down after a change, then its figures count them, and it recovered when the last of them ended', () => {
    const load = [
      answer(900, 1_200),
      answer(1_100, 6_100, timedOut),
      answer(1_500, 3_000),
      answer(3_500, 3_600),
      answer(9_000, 9_050),
    ];
    const [kill, next] = changeFigures(
      load,
      [change('kill', 1_000), change('next', 9_000)],
      SLOW_MS,
    );
    expect(kill).toMatchObject({
      requests: 4,
      failed: 1,
      longestMs: 5_000,
      recoveredAfterMs: 5_100,
    });
    expect(next).toMatchObject({ requests: 1, failed: 0, longestMs: 50, recoveredAfterMs: 0 });
  });

  it('When a request starts before the next change and fails after it, then it counts for the next change, not this one', () => {
    const load = [answer(8_900, 13_900, timedOut)];
    const [first, second] = changeFigures(
      load,
      [change('first', 1_000), change('second', 9_000)],
      SLOW_MS,
    );
    expect(first).toMatchObject({ requests: 0, failed: 0, recoveredAfterMs: 0 });
    expect(second).toMatchObject({ requests: 1, failed: 1, recoveredAfterMs: 4_900 });
  });
});

describe('What counts as a slow answer in a chaos run', () => {
  const changes = [change('kill', 20_000)];
  /** 100 answers ending in the 10 s before the kill, the slowest two taking `slowestMs`. */
  const before = (slowestMs: number) =>
    Array.from({ length: 100 }, (_, index) => {
      const endedAt = 10_500 + index * 90;
      return answer(endedAt - (index >= 98 ? slowestMs : 50), endedAt);
    });

  it('When the load was answered fast before the first change, then an answer over 1 s is slow', () => {
    expect(slowAnswerMs(before(200), changes)).toBe(SLOW_MS);
  });

  it('When the load was answered at a p99 of 1.4 s before the first change, then only an answer over 2.8 s is slow, and a 2 s answer after a kill is not noticed', () => {
    const slowMs = slowAnswerMs(before(1_400), changes);
    const [kill] = changeFigures([...before(1_400), answer(21_000, 23_000)], changes, slowMs);

    expect(slowMs).toBe(2_800);
    expect(kill).toMatchObject({ requests: 1, recoveredAfterMs: 0 });
  });

  it('When slow answers ended more than 10 s before the first change (the warm-up), then they do not count', () => {
    const warmUp = [answer(0, 5_000), answer(1_000, 9_000)];
    expect(slowAnswerMs([...warmUp, ...before(200)], changes)).toBe(SLOW_MS);
  });
});

describe('Chaos targets', () => {
  it('When a scale run answered everything fast, then both targets are met; one 504 or a slow p99 misses them', () => {
    const changes = [change('scale 1 → 3', 1_000, 2_000)];
    const fast = Array.from({ length: 200 }, (_, index) => answer(1_000 + index, 1_050 + index));
    expect(scale.targets({ load: fast, changes }).map(({ met }) => met)).toEqual([true, true]);
    const slow = [...fast, ...Array.from({ length: 3 }, () => answer(1_500, 2_600))];
    expect(scale.targets({ load: slow, changes }).map(({ met }) => met)).toEqual([true, false]);
    const failed = [...fast, answer(1_100, 6_100, timedOut)];
    expect(rolling.targets({ load: failed, changes })[0]?.met).toBe(false);
  });

  it('When 1 % of a broker run fails and it recovers in 10 s, then its targets are met, and just over either misses', () => {
    const changes = [change('kill', 1_000)];
    const ok = Array.from({ length: 99 }, (_, index) => answer(2_000 + index, 2_010 + index));
    const met = [...ok, answer(1_000, 11_000, { status: 503, error: 5030 })];
    expect(broker.targets({ load: met, changes }).map(({ met }) => met)).toEqual([true, true]);
    const missed = [...met, answer(1_000, 11_001, { status: 503, error: 5030 })];
    expect(broker.targets({ load: missed, changes }).map(({ met }) => met)).toEqual([false, false]);
  });

  it('When a writer-kill run fails a request on a partition the killed writer did not hold, then that target is missed', () => {
    const changes = [change('kill', 1_000)];
    const onHeld = answer(1_100, 6_100, timedOut);
    const elsewhere = answer(1_100, 2_000, timedOut);
    const partitionOf = (each: Answer) => (each === elsewhere ? 2 : 0);
    const killedPartitions = new Map([['kill', [0]]]);
    const input = { changes, partitionOf, killedPartitions };
    expect(writerKill.targets({ ...input, load: [onHeld] })[0]?.met).toBe(true);
    expect(writerKill.targets({ ...input, load: [onHeld, elsewhere] })[0]).toMatchObject({
      met: false,
      measured: '1 of 2 failed requests were on other partitions',
    });
  });
});

describe('Chaos targets of the gateways scenario', () => {
  const kill = change('SIGKILL gateway 2 of 4', 1_000);
  const killedGateways = new Map([[kill.name, 'http://127.0.0.1:4002']]);
  const input = { changes: [kill], killedGateways };
  const atKilled = { url: 'http://127.0.0.1:4002', status: 0, failure: 'other side closed' };

  it('When only requests in flight at the killed gateway failed, then the target is met', () => {
    const load = [answer(900, 1_001, atKilled), answer(1_100, 1_150)];
    expect(gateways.targets({ ...input, load })[0]).toMatchObject({
      met: true,
      measured: '0 others answered 503/504/none; 1 in flight at the killed gateway failed',
    });
  });

  it('When a request failed at another gateway, or at the killed one but not in flight at the kill, then the target is missed', () => {
    const elsewhere = answer(900, 1_001, { ...atKilled, url: 'http://127.0.0.1:4001' });
    const later = answer(1_200, 1_300, atKilled);
    const timedOutLater = answer(2_000, 7_000, timedOut);
    for (const failed of [elsewhere, later, timedOutLater])
      expect(gateways.targets({ ...input, load: [failed] })[0]?.met).toBe(false);
  });
});

describe('Chaos targets of the disk-full scenarios', () => {
  const fill = "fill the store's data folder (PostgreSQL's) with a ballast file";
  const changes = [change(fill, 1_000), change('delete the ballast file', 91_000)];
  const refused = answer(2_000, 7_000, timedOut);
  const again = answer(91_500, 91_600);
  const metOf = (load: Answer[]) => storeDiskFull.targets({ load, changes }).map(({ met }) => met);

  it('When creates answer 504 within the limit while the disk is full and 200 soon after it is freed, then every target is met', () => {
    expect(metOf([answer(500, 600), refused, again])).toEqual([true, true, true]);
  });

  it('When no create failed while the disk was full, then the run tested nothing, and says so', () => {
    expect(metOf([answer(2_000, 2_100), again])).toEqual([false, true, true]);
  });

  it('When a create is answered 500, not at all, or later than the limit while the disk is full, then that target is missed', () => {
    const late = answer(2_000, 2_000 + ANSWERED_WITHIN_MS + 1, timedOut);
    expect(metOf([refused, late, again])[1]).toBe(false);
    expect(metOf([refused, answer(3_000, 3_100, { status: 500, error: 5000 }), again])[1]).toBe(
      false,
    );
    expect(metOf([refused, answer(3_000, 20_000, { status: 0, failure: 'hang' }), again])[1]).toBe(
      false,
    );
    expect(metOf([refused, answer(2_000, 2_000 + ANSWERED_WITHIN_MS, timedOut), again])[1]).toBe(
      true,
    );
  });

  it('When the first 200 after the space is back comes later than the limit, or never, then that target is missed', () => {
    const justInTime = answer(91_000, 91_000 + ANSWERED_AGAIN_MS);
    expect(metOf([refused, justInTime])[2]).toBe(true);
    expect(metOf([refused, answer(91_000, 91_001 + ANSWERED_AGAIN_MS)])[2]).toBe(false);
    expect(metOf([refused])[2]).toBe(false);
  });

  it('When the broker restarts, then its recovery is counted from the restart, not from the space freed', () => {
    const brokerChanges = [
      change("fill the broker's log dir with a ballast file", 1_000, 5_000),
      change('delete the ballast file', 95_000),
      change('restart the broker', 95_100, 105_000),
    ];
    // 60.05 s after the space was freed, 59.95 s after the restart began.
    const load = [refused, answer(95_000 + ANSWERED_AGAIN_MS, 95_050 + ANSWERED_AGAIN_MS)];
    expect(brokerDiskFull.targets({ load, changes: brokerChanges }).map(({ met }) => met)).toEqual([
      true,
      true,
      true,
    ]);
  });
});

describe("Chaos' reading of Kafka logs", () => {
  it("When nodes' logs tell of rebalances and controller elections, then the group's events come in time order and the last controller is found", async () => {
    const dir = await temporaryDirectory();
    const [one, two] = [join(dir, 'kafka-1.log'), join(dir, 'kafka-2.log')];
    writeFileSync(
      one,
      [
        '[2026-11-25 04:50:15,100] INFO [QuorumController id=1] Becoming the active controller at epoch 1, next write offset 1. (org.apache.kafka.controller.QuorumController)',
        '[2026-11-25 04:50:20,000] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=0] Stabilized group plant-writers generation 2 with 3 members. (org.apache.kafka.coordinator.group.GroupMetadataManager)',
        '[2026-11-25 04:50:20,500] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=0] Stabilized group other-group generation 2 with 1 members. (org.apache.kafka.coordinator.group.GroupMetadataManager)',
      ].join('\n'),
    );
    writeFileSync(
      two,
      [
        '[2026-11-25 04:50:19,000] INFO [GroupCoordinator id=2 topic=__consumer_offsets partition=0] Preparing to rebalance group plant-writers in state PreparingRebalance with old generation 1 (reason: Adding new member m with group instance id null) (org.apache.kafka.coordinator.group.GroupMetadataManager)',
        '[2026-11-25 04:50:31,000] INFO [QuorumController id=2] Becoming the active controller at epoch 3, next write offset 9. (org.apache.kafka.controller.QuorumController)',
      ].join('\n'),
    );
    const events = rebalanceTimeline([one, two], 'plant-writers');
    expect(events.map(({ text }) => text)).toEqual([
      'Preparing to rebalance group plant-writers in state PreparingRebalance with old generation 1 (reason: Adding new member m with group instance id null)',
      'Stabilized group plant-writers generation 2 with 3 members.',
    ]);
    expect((events[1]?.at ?? 0) - (events[0]?.at ?? 0)).toBe(1_000);
    expect(
      activeController(
        new Map([
          [1, one],
          [2, two],
        ]),
      ),
    ).toBe(2);
  });
});
