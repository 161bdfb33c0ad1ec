import type { OverloadScenario } from './scenario.ts';

/** 2T and 4T offered to one gateway, e2e's closed-loop throughput T measured first. */
export const overload: OverloadScenario = { name: 'overload', gray: false, overload: true };
