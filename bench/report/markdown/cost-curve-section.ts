import { costCurve } from '../cost-curve.ts';
import type { VariantResult } from '../results.ts';
import { ms } from './cells.ts';

/** Each run's CPU per create by process against the offered rate, the closed loop last. */
export function costCurveLines(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const runs = results.filter(({ openLoop }) => openLoop !== undefined);
  if (runs.length === 0) return [];
  return [
    'CPU per create against offered rate: the CPU seconds of each process over the requests sent (idle not subtracted), in µs; the closed loop is the last row.',
    '',
    ...runs.flatMap((result) => {
      const curve = costCurve(result);
      const names = result.usage.map(({ name }) => name);
      return [
        `| ${label(result)}: offered req/s | CPU per create µs | ${names.join(' | ')} | p50 ms | p99 ms |`,
        `|${'---|'.repeat(names.length + 4)}`,
        ...curve.map((point) => {
          const rate = point.closedLoop
            ? `closed loop (${String(point.rate)})`
            : String(point.rate);
          const cells = names.map(
            (name) => point.byProcess.find((each) => each.name === name)?.us ?? '–',
          );
          return `| ${rate} | ${String(point.totalUs)} | ${cells.join(' | ')} | ${ms(point.p50)} | ${ms(point.p99)} |`;
        }),
        '',
      ];
    }),
  ];
}
