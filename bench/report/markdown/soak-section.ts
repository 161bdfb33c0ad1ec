import type { SoakResult } from '../results.ts';
import { verdict } from './cells.ts';

const growth = (from: number, to: number) =>
  from === 0 ? 0 : Math.round(((to - from) / from) * 1000) / 10;

export function soakLines(soak: SoakResult | null): string[] {
  if (soak === null) return [];
  const first = soak.samples[0]?.rssMiB ?? [];
  const last = soak.samples.at(-1)?.rssMiB ?? [];
  const settled = soak.samples.find(({ second }) => second >= 60)?.rssMiB ?? first;
  return [
    `Soak: e2e at ${soak.rate} req/s (80 % of its peak) for ${soak.seconds} s: ` +
      `${soak.load.requestsPerSecond} req/s, p99 ${soak.load.p99} ms, ${soak.load.non2xx} non-2xx, ${soak.load.errors} errors.`,
    '',
    '| process | RSS at start MiB | at 60 s | at end | growth start → end (target < 10 %) | growth 60 s → end |',
    '|---|---|---|---|---|---|',
    ...soak.processes.map((name, index) => {
      const [start, mid, end] = [first[index] ?? 0, settled[index] ?? 0, last[index] ?? 0];
      const total = growth(start, end);
      return `| ${name} | ${start} | ${mid} | ${end} | ${total} % (${verdict(total < 10)}) | ${growth(mid, end)} % |`;
    }),
    '',
  ];
}
