import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { cacheRoot, stateRoot } from '#local/provision/paths.ts';
import { progressLine } from '#tooling/progress/progress-line.ts';
import { startLocalStack } from '#local/stack.ts';
import { stopOnSignal } from '#local/process/stop-on-signal.ts';
import { commandLine, EXIT_CODES } from '#tooling/cli/command-line.ts';
import type { BenchRun } from './bench-run.ts';
import { idRanges } from './closed-loop/id-ranges.ts';
import { measure } from './closed-loop/measure.ts';
import { measureRetries } from './closed-loop/retries.ts';
import { provisionVegeta } from '#local/load/vegeta.ts';
import { benchOptions, USAGE } from './options.ts';
import { calibrate, calibrationLine } from './probes/calibration.ts';
import type { VariantResult } from './report/results.ts';
import { writeResults, anyRequestFailed } from './report/write-results.ts';
import { storeReached } from '#local/faults/distant-store.ts';
import { prepareVariants } from './variants/variants.ts';

/** `npm run bench` with the flags `argv`: the run, its results written, its exit code set. */
export async function main(argv: string[]): Promise<void> {
  const options = commandLine(USAGE, () => benchOptions(argv));
  const startedAt = new Date().toISOString().replaceAll(':', '-');
  const dir = join(stateRoot, 'bench', startedAt);

  console.log('Calibrating: how fast is this machine now (5 s)…');
  const calibration = await calibrate();
  console.log(calibrationLine(calibration));
  const vegeta =
    options.rates.length === 0 && options.capacityTargetMs === null
      ? null
      : await provisionVegeta(cacheRoot(), join(dir, 'logs', 'provision.log'));
  console.log(`Starting Kafka and the MongoDB-protocol server in ${dir}…`);
  const stack = await startLocalStack({
    dir,
    store: options.store,
    secure: options.secure,
    brokers: options.brokers,
  });
  const logDir = join(dir, 'logs');
  const store = await storeReached(stack, options.storeDelayMs, logDir);
  // The services die with this process (SIGKILL on exit); the servers are stopped in order.
  stopOnSignal('the benchmark', store.stop);
  try {
    const run: BenchRun = {
      options,
      stack,
      store,
      startedAt,
      dir,
      logDir,
      token: `bench-${randomBytes(12).toString('base64url')}`,
      ids: idRanges(options.idsBeyond2To53),
      progress: progressLine(),
      calibration,
      vegeta,
    };
    await prepareVariants(run);
    const results = await compareVariants(run);
    const e2e = results.findLast(({ variant }) => variant === 'e2e');
    if (options.preload > 0 && e2e !== undefined) results.push(...(await measureRetries(run, e2e)));
    await writeResults(run, results);
    process.exitCode = anyRequestFailed(results) ? EXIT_CODES.failed : EXIT_CODES.ok;
  } finally {
    await store.stop();
  }
}

/**
 * Every variant once per repetition, in alternating order, so that neither the order nor the
 * machine's drift over a run favours a variant.
 */
async function compareVariants(run: BenchRun): Promise<VariantResult[]> {
  const { variants, repeat, connections, duration } = run.options;
  const results: VariantResult[] = [];
  for (let round = 1; round <= repeat; round++) {
    const order = round % 2 === 0 ? variants.toReversed() : variants;
    for (const variant of order) {
      const of = repeat > 1 ? ` (${String(round)} of ${String(repeat)})` : '';
      console.log(`${variant}${of}: ${connections} connections for ${duration} s…`);
      results.push(await measure(run, variant, round));
    }
  }
  return results;
}
