import type { Answer } from '../observe/traffic.ts';

/** Every answer, times in ms since the load started: for a closer look at a change. */
export function answersCsv(answers: readonly Answer[], loadStartedAt: number): string {
  const rows = answers.map((answer) =>
    [
      answer.phase,
      answer.startedAt - loadStartedAt,
      answer.endedAt - loadStartedAt,
      answer.status,
      answer.error ?? '',
      JSON.stringify(answer.failure ?? ''),
      answer.gateway,
      answer.content.id,
    ].join(','),
  );
  return ['phase,started_ms,ended_ms,status,error,failure,gateway,id', ...rows, ''].join('\n');
}
