import { Session } from 'node:inspector';
import { describe, expect, it } from 'vitest';
import {
  areaOf,
  profileClockUs,
  splitProfile,
  summarizeProfile,
} from '#bench/probes/cpu-profile.ts';

const node = (id: number, functionName: string, url: string, hitCount: number) => ({
  id,
  callFrame: { functionName, url, lineNumber: 9 },
  hitCount,
});

describe('areaOf', () => {
  it.each([
    ['file:///app/node_modules/kafkajs/src/producer/index.js', 'send', 'kafkajs'],
    ['file:///app/node_modules/@fastify/auth/auth.js', 'auth', '@fastify/auth'],
    ['file:///app/node_modules/a/node_modules/bson/lib/bson.cjs', 'serialize', 'bson'],
    ['node:net', 'write', 'node:net'],
    [
      'file:///work/main/services/gateway/src/create-plant.ts',
      'create',
      'services/gateway/src/create-plant.ts',
    ],
    ['', '(garbage collector)', '(garbage collector)'],
    ['', 'writeUtf8String', '(native)'],
  ])('When the code is at %s (%s), then its area is %s', (url, functionName, area) => {
    expect(areaOf(url, functionName)).toBe(area);
  });
});

describe('summarizeProfile', () => {
  it('When a process was partly idle, then shares are of its busy samples, largest first', () => {
    const summary = summarizeProfile(
      {
        nodes: [
          node(1, '(idle)', '', 600),
          node(2, 'send', 'file:///a/node_modules/kafkajs/src/producer/index.js', 250),
          node(3, 'decode', 'file:///a/node_modules/kafkajs/src/protocol/decoder.js', 50),
          node(4, '(garbage collector)', '', 100),
          node(5, '', 'file:///w/shared/batching/coalescer.ts', 0),
        ],
      },
      'gateway',
      'gateway.cpuprofile',
    );

    expect(summary).toEqual({
      process: 'gateway',
      file: 'gateway.cpuprofile',
      busySamples: 400,
      byArea: [
        { name: 'kafkajs', percent: 75 },
        { name: '(garbage collector)', percent: 25 },
      ],
      byFunction: [
        { name: 'send kafkajs:10', percent: 62.5 },
        { name: '(garbage collector) (garbage collector):10', percent: 25 },
        { name: 'decode kafkajs:10', percent: 12.5 },
      ],
    });
  });
});

describe('splitProfile', () => {
  const profile = {
    nodes: [
      node(1, '(idle)', '', 0),
      node(2, 'send', 'file:///a/node_modules/kafkajs/src/producer/index.js', 0),
      node(3, 'insertMany', 'file:///a/node_modules/mongodb/lib/collection.js', 0),
      node(4, '(garbage collector)', '', 0),
      node(5, 'answer', 'file:///w/services/writer/src/lanes/partition-lanes.ts', 0),
    ],
    startTime: 1_000,
    // At 1,001 1,002 … 1,008 µs.
    samples: [2, 2, 1, 3, 4, 5, 5, 2],
    timeDeltas: [1, 1, 1, 1, 1, 1, 1, 1],
  };

  it('When a window covers part of a profile, then only its samples count, idle left out, as shares by group', () => {
    expect(splitProfile(profile, 'writer-1', { fromUs: 1_002, toUs: 1_007 })).toEqual({
      process: 'writer-1',
      busySamples: 4,
      busyUs: 4,
      byGroup: [
        { name: 'project', percent: 25 },
        { name: 'kafkajs', percent: 25 },
        { name: 'store driver', percent: 25 },
        { name: 'GC', percent: 25 },
      ],
      byCaller: [
        { name: '(no project frame)', percent: 75 },
        { name: 'services/writer/src/lanes/partition-lanes.ts', percent: 25 },
      ],
    });
  });

  it('When a window holds no sample, then nothing is split', () => {
    expect(splitProfile(profile, 'writer-1', { fromUs: 2_000, toUs: 3_000 })).toEqual({
      process: 'writer-1',
      busySamples: 0,
      busyUs: 0,
      byGroup: [],
      byCaller: [],
    });
  });

  it('When a library Fastify also uses runs below project code, then its samples are charged to the project file that called it', () => {
    const parsing = {
      nodes: [
        { ...node(1, '(root)', '', 0), children: [2] },
        {
          ...node(2, 'runParser', 'file:///a/node_modules/fastify/lib/content-type.js', 1),
          children: [3],
        },
        {
          ...node(3, 'parseSecurely', 'file:///w/shared/contracts/json.ts', 1),
          children: [4],
        },
        { ...node(4, '_parse', 'file:///a/node_modules/secure-json-parse/index.js', 1) },
      ],
      startTime: 0,
      samples: [2, 3, 4, 4],
      timeDeltas: [1, 1, 1, 1],
    };

    expect(splitProfile(parsing, 'ceiling', { fromUs: 0, toUs: 100 }).byCaller).toEqual([
      { name: 'shared/contracts/json.ts', percent: 75 },
      { name: 'fastify & Node HTTP', percent: 25 },
    ]);
  });

  it('When samples sit below project code, then each is charged to the nearest project file up the stack, unless Fastify or Node’s HTTP comes first', () => {
    const withStacks = {
      nodes: [
        { ...node(1, '(root)', '', 0), children: [2, 6] },
        { ...node(2, 'runHooks', 'file:///a/node_modules/fastify/lib/hooks.js', 1), children: [3] },
        {
          ...node(3, 'authenticate', 'file:///w/services/gateway/src/auth/static-tokens.ts', 1),
          children: [4],
        },
        { ...node(4, 'update', 'node:internal/crypto/hash', 1), children: [5] },
        { ...node(5, 'send', 'file:///a/node_modules/fastify/lib/reply.js', 1) },
        {
          ...node(6, 'publish', 'file:///w/services/gateway/src/kafka/publisher.ts', 1),
          children: [7],
        },
        { ...node(7, 'encode', 'file:///a/node_modules/kafkajs/src/encoder.js', 1), children: [8] },
        { ...node(8, '(garbage collector)', '', 1) },
      ],
      startTime: 0,
      samples: [2, 3, 4, 5, 6, 7, 8, 1],
      timeDeltas: [1, 1, 1, 1, 1, 1, 1, 1],
    };

    expect(splitProfile(withStacks, 'gateway', { fromUs: 0, toUs: 100 }).byCaller).toEqual([
      { name: 'services/gateway/src/kafka/publisher.ts', percent: 37.5 },
      { name: 'fastify & Node HTTP', percent: 25 },
      { name: 'services/gateway/src/auth/static-tokens.ts', percent: 25 },
      { name: '(no project frame)', percent: 12.5 },
    ]);
  });
});

describe('profileClockUs', () => {
  it('When a process profiles itself, then its samples are stamped on the clock the bench reads', () => {
    const session = new Session();
    session.connect();
    const post = <T>(method: string) =>
      new Promise<T>((resolve, reject) => {
        session.post(method, (error, result) => {
          if (error === null) resolve(result as T);
          else reject(error);
        });
      });
    return (async () => {
      await post('Profiler.enable');
      await post('Profiler.start');
      const fromUs = profileClockUs();
      for (const end = Date.now() + 20; Date.now() < end;);
      const toUs = profileClockUs();
      const { profile } = await post<{ profile: { startTime: number; endTime: number } }>(
        'Profiler.stop',
      );
      session.disconnect();

      expect(profile.startTime).toBeLessThanOrEqual(fromUs);
      expect(profile.endTime).toBeGreaterThanOrEqual(toUs);
      expect(toUs - profile.startTime).toBeLessThan(1_000_000);
    })();
  });
});
