import type { VariantResult } from '../results.ts';
import { ms } from './cells.ts';
import { spreadOf } from '#tooling/statistics/spread.ts';
import { errorKindsText, heldTarget, type RateStep } from '../../open-loop/rate-step.ts';

/** The project's goal for e2e's capacity against a direct write's. */
const CAPACITY_RATIO_GOAL = 2.5;

/** Every open-loop step of every run, then each variant's capacity over the repetitions. */
export function openLoopLines(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  const runs = results.flatMap((result) =>
    result.openLoop === undefined ? [] : [{ name: label(result), result, ...result.openLoop }],
  );
  if (runs.length === 0) return [];
  const rows = runs.flatMap(({ name, rates, capacity }) => [
    ...rates.map((step) => stepRow(name, 'rate', step, null)),
    ...(capacity?.steps ?? []).map((step) =>
      stepRow(name, `capacity ${String(capacity?.targetMs)} ms`, step, capacity?.targetMs ?? null),
    ),
  ]);
  return [
    'Open loop (vegeta, a steady arrival rate): latency of the 2xx answers from each request’s intended send time; errors are non-2xx answers (503 and 504 included) and requests without one.',
    '',
    '| run | step | offered req/s | sent req/s | p50 ms | p99 ms | p99.9 ms | max ms | errors | machine busy % | vegeta CPU s | note |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...capacityLines(runs.map(({ result }) => result)),
  ];
}

function stepRow(run: string, kind: string, step: RateStep, targetMs: number | null): string {
  const errors = errorKindsText(step);
  const notes = [
    step.behindSchedule ? `**behind schedule** (send lag p99 ${ms(step.sendLagP99)} ms)` : '',
    targetMs === null ? '' : heldTarget(step, targetMs) ? 'held' : 'missed',
  ].filter((note) => note !== '');
  return `| ${run} | ${kind} | ${String(step.offered)} | ${String(step.achieved)} | ${ms(step.p50)} | ${ms(step.p99)} | ${ms(step.p999)} | ${ms(step.max)} | ${String(step.errors)}${errors === '' ? '' : ` (${errors})`} | ${String(step.machineBusyPercent)} | ${step.generatorCpuSeconds.toFixed(1)} | ${notes.join('; ')} |`;
}

/** Each variant's capacity searches, in the order run: the rate held (0 when none) and vegeta's CPU share there. */
export function capacitiesByVariant(
  results: readonly VariantResult[],
): Map<string, { rate: number; vegetaShare: number }[]> {
  const byVariant = new Map<string, { rate: number; vegetaShare: number }[]>();
  for (const { variant, openLoop } of results) {
    const capacity = openLoop?.capacity;
    if (capacity === undefined || capacity === null) continue;
    const step = capacity.steps.find(({ offered }) => offered === capacity.rate);
    const share = step === undefined ? 0 : step.generatorCpuSeconds / step.seconds;
    byVariant.set(variant, [
      ...(byVariant.get(variant) ?? []),
      { rate: capacity.rate ?? 0, vegetaShare: share },
    ]);
  }
  return byVariant;
}

/** Each variant's capacity, median (min–max) over its runs, and e2e's ÷ direct's against the goal. */
function capacityLines(results: readonly VariantResult[]): string[] {
  const byVariant = capacitiesByVariant(results);
  if (byVariant.size === 0) return [];
  const medians = new Map<string, number>();
  const lines = [...byVariant].map(([variant, runs]) => {
    const { median, min, max } = spreadOf(runs.map(({ rate }) => rate));
    medians.set(variant, median);
    const shares = runs.map(({ vegetaShare }) => Math.round(vegetaShare * 100));
    return `| ${variant} | ${String(median)} (${String(min)}–${String(max)}) | ${runs.map(({ rate }) => rate).join(', ')} | ${shares.join(', ')} |`;
  });
  const e2e = medians.get('e2e');
  const direct = medians.get('direct');
  const ratio = e2e === undefined || direct === undefined || direct === 0 ? null : e2e / direct;
  return [
    `Capacity: the highest steady rate held (p99 within the target, no error, on schedule), to within 10 %; median (min–max) over ${String(Math.max(...[...byVariant.values()].map((runs) => runs.length)))} run(s).`,
    '',
    '| variant | capacity req/s | each run | vegeta’s CPU s ÷ the step’s s at that rate, % (its wait for the last answers included) |',
    '|---|---|---|---|',
    ...lines,
    '',
    ...(ratio === null
      ? []
      : [
          `- e2e capacity ÷ direct capacity (medians): ${ratio.toFixed(2)}× (goal ≥ ${String(CAPACITY_RATIO_GOAL)}×: ${ratio >= CAPACITY_RATIO_GOAL ? 'met' : '**missed**'})`,
          '',
        ]),
  ];
}
