import type { Answer } from '../observe/traffic.ts';
import type { FlowSecond } from '../report/html-report.ts';
import { flowOf, p99Of, statusTally, windowsOf, WINDOW_MS, type PhaseRun } from './targets.ts';

export type PhasePlan = Omit<PhaseRun, 'startedAt' | 'answers'>;

/** 2T then 4T for 60 s each, then T/4 for 30 s: the overload scenario's rates, back to back. */
export function overloadPhases(throughput: number): PhasePlan[] {
  return [
    {
      name: '2T',
      rate: Math.round(2 * throughput),
      seconds: 60,
      overload: true,
      goodputShare: 0.7,
    },
    {
      name: '4T',
      rate: Math.round(4 * throughput),
      seconds: 60,
      overload: true,
      goodputShare: 0.5,
    },
    { name: 'T/4', rate: Math.max(1, Math.round(throughput / 4)), seconds: 30, overload: false },
  ];
}

/** Each whole second from `loadStartedAt`: requests sent in it, answered 2xx, refused 503. */
export function flowPerSecond(answers: readonly Answer[], loadStartedAt: number): FlowSecond[] {
  const bySecond: Answer[][] = [];
  for (const answer of answers) {
    const second = Math.floor((answer.startedAt - loadStartedAt) / 1_000);
    if (second >= 0) (bySecond[second] ??= []).push(answer);
  }
  return Array.from({ length: bySecond.length }, (_, second) => ({
    second,
    ...flowOf(bySecond[second] ?? [], 1),
  }));
}

/** A phase as the printed report shows it: its rate, each window's flow and p99, what it got. */
export function phaseLines(phase: PhaseRun): string[] {
  const windows = windowsOf(phase).map(({ from, answers }) => {
    const { offered, goodput, shed } = flowOf(answers, WINDOW_MS / 1_000);
    const ok = answers.filter(({ status }) => status === 200);
    return `    +${String(from / 1_000)} s: offered ${offered.toFixed(0)}/s, goodput ${goodput.toFixed(0)}/s, shed ${shed.toFixed(0)}/s, p99 of 2xx ${p99Of(ok).toFixed(1)} ms`;
  });
  const answered = phase.answers.filter(({ status }) => status === 200).length;
  return [
    `${phase.name}: ${String(phase.rate)}/s for ${String(phase.seconds)} s; ${String(phase.answers.length)} sent, ${String(answered)} answered 200, ${String(phase.answers.filter(({ status }) => status === 503).length)} refused 503, others: ${statusTally(phase.answers.filter(({ status }) => status !== 200 && status !== 503))}`,
    ...windows,
  ];
}
