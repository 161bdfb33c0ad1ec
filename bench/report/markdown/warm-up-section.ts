import type { VariantResult } from '../results.ts';

/** `503 × 476, no answer × 2`, or `none failed`. */
function failedLine(failures: Record<string, number>): string {
  const entries = Object.entries(failures);
  if (entries.length === 0) return 'none failed';
  return entries.map(([status, count]) => `${status} × ${String(count)}`).join(', ');
}

/** How long each run warmed up, and what each step of its warm-up measured. */
export function warmUpLines(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const lines = results.flatMap((result) => {
    const { warmUp } = result;
    if (warmUp === undefined || warmUp.steps.length === 0) return [];
    const steps = warmUp.steps.map(
      ({ cpuUsPerCreate, p99Ms, failures }) =>
        `${String(cpuUsPerCreate)} µs / ${String(p99Ms)} ms${failures === undefined ? '' : ` / ${failedLine(failures)}`}`,
    );
    return [
      `| ${label(result)} | ${String(warmUp.seconds)}${warmUp.capped ? ' (the cap, still falling)' : ''} | ${steps.join(' → ')} |`,
    ];
  });
  if (lines.length === 0) return [];
  return [
    'Warm-up, in steps of 5 s, until neither CPU per create nor p99 fell by 5 % in a step (`--warmup` is the cap):',
    '',
    '| run | warm-up s | each step: CPU per create / p99 / failed, by status |',
    '|---|---|---|',
    ...lines,
    '',
  ];
}
