import { describe, expect, it } from 'vitest';
import { areaOf, summarizeProfile } from '#bench/probes/cpu-profile.ts';

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
          node(5, '', 'file:///w/shared/coalescer.ts', 0),
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
