import { describe, expect, it } from 'vitest';
import { overloadTargets, type PhaseRun } from '#chaos/overload/targets.ts';
import { answer } from '#test/support/clients/chaos-answers.ts';

const T = 100;
const shed = { status: 503, error: 5030, retryAfter: '1' };

/** A phase of `seconds` at `rate`, each second's requests answered as `answerOf` says. */
function phase(
  plan: Pick<PhaseRun, 'name' | 'rate' | 'seconds' | 'overload'> & { goodputShare?: number },
  answerOf: (
    second: number,
    index: number,
  ) => { ms: number; details?: Parameters<typeof answer>[2] },
): PhaseRun {
  const answers = [];
  for (let second = 0; second < plan.seconds; second++)
    for (let index = 0; index < plan.rate; index++) {
      const startedAt = second * 1_000 + (index * 1_000) / plan.rate;
      const { ms, details } = answerOf(second, index);
      answers.push(answer(startedAt, startedAt + ms, details));
    }
  return { ...plan, startedAt: 0, answers };
}

/** Whether each target was met, by its text after the phase's name. */
function byTarget(targets: ReturnType<typeof overloadTargets>): Record<string, boolean> {
  return Object.fromEntries(
    targets.map(({ target, met }) => [target.slice(target.indexOf(':') + 1).trim(), met]),
  );
}

describe('The overload targets', () => {
  it('When 75 of 200 a second are answered 200 within 100 ms and the rest refused at once, then 2T holds every target', () => {
    const run = phase(
      { name: '2T', rate: 200, seconds: 20, overload: true, goodputShare: 0.7 },
      (_second, index) => (index % 8 < 3 ? { ms: 100 } : { ms: 2, details: shed }),
    );

    const targets = overloadTargets(T, [run]);

    expect(targets.every(({ met }) => met)).toBe(true);
    expect(targets[1]?.measured).toBe('lowest window 75/s (75 % of T)');
  });

  it('When goodput falls below the share of T in one window, or an answer takes over a second, or one is a 504, then those targets are missed', () => {
    const run = phase(
      { name: '4T', rate: 400, seconds: 20, overload: true, goodputShare: 0.5 },
      (second, index) => {
        if (second >= 12 && second < 15) return { ms: 2, details: shed };
        if (second === 17 && index === 0) return { ms: 1_200 };
        if (second === 18 && index === 0)
          return { ms: 5_000, details: { status: 504, error: 5040 } };
        return index % 4 === 0 ? { ms: 50 } : { ms: 2, details: shed };
      },
    );

    const met = byTarget(overloadTargets(T, [run]));

    expect(met).toEqual({
      'the load kept its schedule (≥ 95 % of 400/s sent in every window)': true,
      'goodput ≥ 50 % of T (50/s) in every window from 5 s': false,
      'every request answered within 1000 ms from 5 s, 2xx or 503 with Retry-After': false,
      'p99 of the 2xx ≤ 250 ms in every window from 5 s': true,
    });
  });

  it('When one window has 2 % of its 2xx at 300 ms, then the p99 target is missed, though it holds over the whole phase', () => {
    const run = phase(
      { name: '2T', rate: 200, seconds: 30, overload: true, goodputShare: 0.7 },
      (second, index) => {
        if (index % 2 === 1) return { ms: 2, details: shed };
        return second >= 10 && second < 15 && index % 100 === 0 ? { ms: 300 } : { ms: 50 };
      },
    );

    const p99 = overloadTargets(T, [run])[3];

    expect(p99?.met).toBe(false);
    expect(p99?.measured).toBe(
      'highest window p99 300.0 ms (from 10 s); all windows together 50.0 ms',
    );
  });

  it('When a 503 comes without Retry-After, then it counts among the other answers', () => {
    const run = phase(
      { name: '2T', rate: 10, seconds: 10, overload: true, goodputShare: 0.1 },
      (second, index) =>
        second === 6 && index === 0 ? { ms: 2, details: { status: 503, error: 5030 } } : { ms: 10 },
    );

    const answered = overloadTargets(T / 10, [run])[2];
    expect(answered?.met).toBe(false);
    expect(answered?.measured).toContain('503 without Retry-After ×1');
  });

  it('When the phase after the overload answers within 50 ms from its fifth second, then it has recovered, whatever its first seconds took', () => {
    const recovered = phase({ name: 'T/4', rate: 25, seconds: 30, overload: false }, (second) => ({
      ms: second < 5 ? 400 : 20,
    }));
    const slow = phase({ name: 'T/4', rate: 25, seconds: 30, overload: false }, (second) => ({
      ms: second === 20 ? 400 : 20,
    }));

    expect(overloadTargets(T, [recovered]).map(({ met }) => met)).toEqual([true, true]);
    expect(overloadTargets(T, [slow])[1]?.met).toBe(false);
  });
});
