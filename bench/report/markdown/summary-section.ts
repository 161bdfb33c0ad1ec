import type { Spread } from '#tooling/statistics/spread.ts';
import type { VariantSummary } from '../summary.ts';
import { ratio } from './cells.ts';

const spread = ({ min, median, max }: Spread, digits: number) =>
  min === max
    ? median.toFixed(digits)
    : `${median.toFixed(digits)} (${min.toFixed(digits)}–${max.toFixed(digits)})`;

/**
 * Median (min–max) of every figure over the repetitions, and the ratios of the medians; the CPU
 * of every process the variant uses (services, broker, store) per create answered 2xx.
 */
export function summaryLines(summaries: readonly VariantSummary[], repeat: number): string[] {
  const e2e = summaries.find(({ variant }) => variant === 'e2e');
  const lines = [
    `${repeat > 1 ? `Over ${String(repeat)} repetitions, in alternating order` : 'One run'}: median (min–max); ratios from the medians.`,
    '',
    '| variant | req/s | e2e ÷ it | p50 ms | p99 ms | sequential median ms | CPU µs per create |',
    '|---|---|---|---|---|---|---|',
    ...summaries.map((summary) => {
      const { variant, requestsPerSecond, p50, p99, sequentialMedian, cpuMicrosPerCreate } =
        summary;
      const relative =
        e2e === undefined || variant === 'e2e'
          ? ''
          : ratio(e2e.requestsPerSecond.median, requestsPerSecond.median);
      return `| ${variant} | ${spread(requestsPerSecond, 0)} | ${relative} | ${spread(p50, 2)} | ${spread(p99, 2)} | ${sequentialMedian === null ? '' : spread(sequentialMedian, 2)} | ${cpuMicrosPerCreate === null ? '' : spread(cpuMicrosPerCreate, 0)} |`;
    }),
    '',
  ];
  return lines;
}
