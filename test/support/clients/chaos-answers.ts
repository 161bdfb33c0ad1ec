import type { Answer } from '#chaos/observe/traffic.ts';

let nextId = 0n;
const GATEWAY_0 = 'http://127.0.0.1:3000';

/** A create of the chaos load, through gateway 0, answered 200 unless `details` say otherwise. */
export function answer(startedAt: number, endedAt: number, details: Partial<Answer> = {}): Answer {
  return {
    content: { id: ++nextId, name: 'Fern' },
    gateway: 0,
    url: GATEWAY_0,
    phase: 'load',
    startedAt,
    endedAt,
    status: 200,
    ...details,
  };
}

export const timedOut = { status: 504, error: 5040 };
