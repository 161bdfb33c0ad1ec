import { times } from '../summary.ts';

export const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : times(a / b));
export const verdict = (met: boolean) => (met ? 'met' : '**missed**');
