import { describe, expect, it } from 'vitest';
import { requestsPerThousand } from '#bench/probes/broker-requests.ts';

describe('requestsPerThousand', () => {
  it('When the brokers handled requests during a run, then each kind is counted per 1,000 creates, most frequent first, and kinds that did not move are left out', () => {
    const before = { Produce: 1_000, Fetch: 500, Metadata: 7, Heartbeat: 40 };
    const after = { Produce: 3_500, Fetch: 2_500, Metadata: 7, Heartbeat: 41, OffsetCommit: 900 };

    expect(Object.entries(requestsPerThousand(before, after, 10_000))).toEqual([
      ['Produce', 250],
      ['Fetch', 200],
      ['OffsetCommit', 90],
      ['Heartbeat', 0.1],
    ]);
  });
});
