import { describe, expect, it } from 'vitest';
import { answerOf } from '#chaos/overload/open-load.ts';
import { flowPerSecond, overloadPhases } from '#chaos/overload/phases.ts';
import { answer } from '#test/support/clients/chaos-answers.ts';

describe('The overload scenario’s rates and flow', () => {
  it('When T is measured, then 2T and 4T are offered for 60 s each, then T/4 for 30 s', () => {
    expect(
      overloadPhases(1_001).map(({ name, rate, seconds, overload }) => [
        name,
        rate,
        seconds,
        overload,
      ]),
    ).toEqual([
      ['2T', 2_002, 60, true],
      ['4T', 4_004, 60, true],
      ['T/4', 250, 30, false],
    ]);
  });

  it('When answers are counted by the second they were sent in, then each second has its offered, goodput and shed', () => {
    const shed = { status: 503, error: 5030, retryAfter: '1' };
    const answers = [
      answer(1_000, 1_010),
      answer(1_100, 1_120, shed),
      answer(1_900, 2_500),
      answer(2_100, 2_101, { status: 504, error: 5040 }),
      answer(500, 600),
    ];

    expect(flowPerSecond(answers, 1_000)).toEqual([
      { second: 0, offered: 3, goodput: 2, shed: 1 },
      { second: 1, offered: 1, goodput: 0, shed: 0 },
    ]);
  });

  it('When vegeta records a 503 with its body and Retry-After, then the answer carries its error code and Retry-After, and a 200 its plant', () => {
    const content = { id: 7n, name: 'overload-7' };
    const hit = { seq: 0, sentNs: 2_000_000_000n, latencyMs: 3.5, error: '' };

    expect(
      answerOf(
        { ...hit, code: 503, body: '{"error":5030,"message":"busy"}', retryAfter: '1' },
        content,
        'http://gateway',
      ),
    ).toMatchObject({
      status: 503,
      error: 5030,
      retryAfter: '1',
      startedAt: 2_000,
      endedAt: 2_003.5,
    });
    expect(
      answerOf({ ...hit, code: 200, body: '{"name":"overload-7"}' }, content, 'http://gateway'),
    ).toMatchObject({ status: 200, plant: { name: 'overload-7' } });
    expect(
      answerOf({ ...hit, code: 0, error: 'connection reset' }, content, 'http://gateway'),
    ).toMatchObject({ status: 0, failure: 'connection reset' });
  });
});
