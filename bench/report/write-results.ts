import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '#local/provision/paths.ts';
import type { BenchRun } from '../bench-run.ts';
import { toSvg } from './chart.ts';
import { benchHtml } from './bench-html.ts';
import { documentsStored } from '../variants/preload.ts';
import { toMarkdown } from './markdown/markdown.ts';
import { runLabel, type VariantResult } from './results.ts';

/** Writes bench/results/<startedAt>.{json,md,svg,html} and prints the Markdown. */
export async function writeResults(run: BenchRun, results: VariantResult[]): Promise<void> {
  const { options, stack, startedAt } = run;
  const { connections, duration, brokers } = options;
  const report = {
    startedAt,
    calibration: run.calibration,
    machine: { cores: cpus().length, node: process.version },
    settings: {
      connections,
      duration,
      warmup: options.warmup,
      partitions: options.partitions,
      writers: options.writers,
      gateways: options.gateways,
      sequential: options.sequential,
      repeat: options.repeat,
      preload: options.preload,
      store: `${stack.mongoServer}${options.secure ? '; Kafka on SASL_SSL with ACLs, the store on TLS' : ''}${brokers === 1 ? '' : `; ${String(brokers)} Kafka brokers, replication factor 3, min.insync.replicas 2`}${options.storeDelayMs === 0 ? '' : `; the store ${String(options.storeDelayMs)} ms away each way (a delaying proxy)`}`,
      logLevel: options.logLevel,
      idsBeyond2To53: options.idsBeyond2To53,
      rates: options.rates,
      capacityTargetMs: options.capacityTargetMs,
    },
    documentsStoredAtEnd: await documentsStored(stack.mongoUri),
    results,
  };
  const markdown = toMarkdown(report);
  const resultsDir = join(projectRoot, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  await writeFile(join(resultsDir, `${startedAt}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(resultsDir, `${startedAt}.md`), markdown);
  await writeFile(join(resultsDir, `${startedAt}.html`), benchHtml(report).html);
  await writeFile(
    join(resultsDir, `${startedAt}.svg`),
    toSvg(
      results.map((result) => ({ ...result, variant: runLabel(result, options.repeat) })),
      `${connections} connections, ${duration} s, ${stack.mongoServer}`,
    ),
  );
  console.log(`\n${markdown}\nWritten to bench/results/${startedAt}.{json,md,svg,html}`);
}

/** Whether any request of any load went unanswered or was answered other than 2xx. */
export function anyRequestFailed(results: readonly VariantResult[]): boolean {
  return results.some(({ load, sequential, soak }) =>
    [load, sequential, soak?.load ?? null].some(
      (each) => each !== null && each.non2xx + each.errors > 0,
    ),
  );
}
