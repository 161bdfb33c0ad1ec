import type { VariantResult } from '../results.ts';
import { ratio, verdict } from './cells.ts';

/**
 * With --preload: the e2e run beside retries of the run's own plants, on the store before the
 * preload; beside retries of preloaded plants after it, saturated and at half that peak; against
 * the e2e run without retries. Retry latency is judged at half the peak: saturated, every answer
 * waits behind the connections ahead of it, fresh or not.
 */
export function retryLines(results: readonly VariantResult[]): string[] {
  const plain = results.findLast(({ variant }) => variant === 'e2e');
  const retried = results.flatMap(({ variant, load, retries }) =>
    retries === null ? [] : [{ variant, load, retries }],
  );
  const [small, large, paced] = retried;
  if (small === undefined || large === undefined) return [];
  const atOperatingPoint = paced ?? large;
  const { retries } = atOperatingPoint;
  const lines = [
    ...retried.map(
      ({ variant, load, retries: run }) =>
        `Retries during \`${variant}\`: ${run.requests} answered, median ${run.p50} ms, ` +
        `p99 ${run.p99} ms, ${run.non2xx + run.errors} failed; fresh creates' median ` +
        `${load.p50} ms, p99 ${load.p99} ms.`,
    ),
    '',
    `- retry median at \`${atOperatingPoint.variant}\`: ${retries.p50} ms (target ≤ 20 ms: ${verdict(retries.p50 <= 20)})`,
    `- retry p99 at \`${atOperatingPoint.variant}\`: ${retries.p99} ms (target ≤ 100 ms: ${verdict(retries.p99 <= 100)})`,
    `- e2e throughput with the preload and retries / the same retries before the preload: ${ratio(large.load.requestsPerSecond, small.load.requestsPerSecond)} (what the store's size costs)`,
  ];
  if (plain !== undefined) {
    const share = large.load.requestsPerSecond / Math.max(1, plain.load.requestsPerSecond);
    const waited = large.load.p99 - plain.load.p99;
    lines.push(
      `- e2e throughput with the preload and retries / without either: ${ratio(large.load.requestsPerSecond, plain.load.requestsPerSecond)} (target ≥ 0.9×: ${verdict(share >= 0.9)})`,
      `- fresh creates' p99 with the preload and retries − without either: ${waited.toFixed(2)} ms (target ≤ 50 ms: ${verdict(waited <= 50)})`,
    );
  }
  return [...lines, ''];
}
