import type { BenchRun } from '../bench-run.ts';
import { measure, RETRY_CONNECTIONS } from './measure.ts';
import { documentsStored, preloadPlants } from '../variants/preload.ts';
import type { VariantResult } from '../report/results.ts';

/**
 * --preload: e2e again beside clients retrying stored plants, first the run's own plants on the
 * store as it is, then `preload` more plants written straight into the store, saturated and at
 * half that peak. `e2e` is the last e2e measurement of the comparison.
 */
export async function measureRetries(run: BenchRun, e2e: VariantResult): Promise<VariantResult[]> {
  const { options, stack, ids } = run;
  const { preload, repeat } = options;
  const results: VariantResult[] = [];
  // The same retries on the store as it is, before the preload: what the store's size costs.
  const small = await documentsStored(stack.mongoUri);
  const ownLabel = `e2e @ ${small} plants, retrying`;
  console.log(`${ownLabel}: ${RETRY_CONNECTIONS} clients retry the e2e run's own plants…`);
  results.push(
    await measure(run, 'e2e', repeat, {
      label: ownLabel,
      run: 0n,
      retryOf: { first: ids.firstId('e2e', e2e.round), count: e2e.load.requests },
    }),
  );
  console.log(`preload: writing ${preload} plants straight into the store…`);
  await preloadPlants(stack.mongoUri, ids.preloaded, preload);
  // Measured right after the bulk load, autovacuum's first pass over the table ran during the
  // load; a store that grew over days has had it.
  console.log('preload: settling the store (PostgreSQL: VACUUM ANALYZE, CHECKPOINT)…');
  await stack.mongo.settle?.();
  // Not counted: FerretDB reads every document into memory to count them.
  const label = `e2e @ ${preload} more plants, retrying`;
  console.log(`${label}: ${RETRY_CONNECTIONS} clients retry preloaded plants…`);
  const preloaded = { first: ids.preloaded, count: preload };
  const saturated = await measure(run, 'e2e', repeat, { label, run: 1n, retryOf: preloaded });
  results.push(saturated);
  // Saturated, every answer waits its turn behind the connections ahead of it (a fresh create
  // waited 29–38 ms): a latency is read at an operating point, here half of what the same mix
  // of fresh creates and retries peaked at.
  const overallRate = Math.round(saturated.load.requestsPerSecond / 2);
  const pacedLabel = `e2e @ ${preload} more plants, retrying, ${overallRate} creates/s`;
  console.log(`${pacedLabel}: half that peak, ${RETRY_CONNECTIONS} clients retrying…`);
  results.push(
    await measure(run, 'e2e', repeat, {
      label: pacedLabel,
      run: 2n,
      retryOf: preloaded,
      overallRate,
    }),
  );
  return results;
}
