import { spreadOf, type Spread } from '#tooling/statistics/spread.ts';
import { createsAnswered } from '../closed-loop/load.ts';
import type { VariantResult } from './results.ts';

/** The figures of one measurement that `--repeat` spreads and the targets judge. */
export interface Figures {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  sequentialMedian: number | null;
  /** CPU of every process the variant uses (services, broker, store), per 2xx answer. */
  cpuMicrosPerCreate: number | null;
}

export interface VariantSummary {
  variant: string;
  runs: number;
  requestsPerSecond: Spread;
  p50: Spread;
  p99: Spread;
  sequentialMedian: Spread | null;
  cpuMicrosPerCreate: Spread | null;
}

export function figuresOf({ load, sequential, usage }: VariantResult): Figures {
  const answered = createsAnswered(load);
  const cpuSeconds = usage.reduce((sum, { cpuSeconds: seconds }) => sum + seconds, 0);
  return {
    requestsPerSecond: load.requestsPerSecond,
    p50: load.p50,
    p99: load.p99,
    sequentialMedian: sequential?.p50 ?? null,
    cpuMicrosPerCreate:
      usage.length === 0 || answered <= 0 ? null : Math.round((cpuSeconds * 1e6) / answered),
  };
}

function optionalSpread(values: readonly (number | null)[]): Spread | null {
  const present = values.filter((value) => value !== null);
  return present.length === 0 ? null : spreadOf(present);
}

/** Every variant's figures over its runs, in the order the variants first ran. */
export function summarize(results: readonly VariantResult[]): VariantSummary[] {
  const byVariant = new Map<string, Figures[]>();
  for (const result of results) {
    const runs = byVariant.get(result.variant) ?? [];
    runs.push(figuresOf(result));
    byVariant.set(result.variant, runs);
  }
  return [...byVariant].map(([variant, runs]) => ({
    variant,
    runs: runs.length,
    requestsPerSecond: spreadOf(runs.map(({ requestsPerSecond }) => requestsPerSecond)),
    p50: spreadOf(runs.map(({ p50 }) => p50)),
    p99: spreadOf(runs.map(({ p99 }) => p99)),
    sequentialMedian: optionalSpread(runs.map(({ sequentialMedian }) => sequentialMedian)),
    cpuMicrosPerCreate: optionalSpread(runs.map(({ cpuMicrosPerCreate }) => cpuMicrosPerCreate)),
  }));
}

export interface Target {
  label: string;
  /** The figure judged, as printed; null when a variant it needs did not run. */
  value: string | null;
  met: boolean;
}

export const times = (value: number) => `${value.toFixed(2)}×`;

/** The targets of docs/performance.md, judged on the medians. */
export function targetsOf(summaries: readonly VariantSummary[]): Target[] {
  const of = (variant: string) => summaries.find((summary) => summary.variant === variant);
  const e2e = of('e2e');
  const direct = of('direct');
  const nestjs = of('nestjs');
  if (e2e === undefined) return [];
  const throughput = e2e.requestsPerSecond.median;
  const targets: Target[] = [];
  const ratioTarget = (label: string, baseline: VariantSummary | undefined, at: number) => {
    const ratio = baseline === undefined ? null : throughput / baseline.requestsPerSecond.median;
    targets.push({
      label: `${label} (target ≥ ${String(at)}×)`,
      value: ratio === null ? null : times(ratio),
      met: ratio !== null && ratio >= at,
    });
  };
  ratioTarget('e2e throughput / nestjs', nestjs, 5);
  ratioTarget('e2e throughput / direct', direct, 2.5);
  const cpu = e2e.cpuMicrosPerCreate?.median ?? null;
  targets.push({
    label: 'e2e CPU per create, all processes (target ≤ 250 µs)',
    value: cpu === null ? null : `${String(Math.round(cpu))} µs`,
    met: cpu !== null && cpu <= 250,
  });
  const p99 = e2e.p99.median;
  targets.push({
    label: 'e2e p99 (target ≤ direct p99 and ≤ 100 ms)',
    value:
      direct === undefined
        ? null
        : `${p99.toFixed(2)} ms against ${direct.p99.median.toFixed(2)} ms`,
    met: direct !== undefined && p99 <= direct.p99.median && p99 <= 100,
  });
  const sequential = e2e.sequentialMedian?.median;
  const baseline = direct?.sequentialMedian?.median;
  const extra = sequential === undefined || baseline === undefined ? null : sequential - baseline;
  targets.push({
    label: 'sequential median e2e − direct (target ≤ 1 ms)',
    value: extra === null ? null : `${extra.toFixed(2)} ms`,
    met: extra !== null && extra <= 1,
  });
  return targets;
}
