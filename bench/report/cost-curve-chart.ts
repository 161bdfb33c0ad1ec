import { PALETTE } from '#tooling/charts/chart-frame.ts';
import { lineChart, type Series } from '#tooling/charts/line-chart.ts';
import { costCurve } from './cost-curve.ts';
import type { VariantResult } from './results.ts';

/**
 * CPU per create against offered rate, one chart a run with an open loop: each process's line
 * and their total, the closed loop as the last, hollow point.
 */
export function costCurveCharts(
  results: readonly VariantResult[],
  label: (result: VariantResult) => string,
): string[] {
  return results
    .filter(({ openLoop }) => openLoop !== undefined)
    .map((result) => {
      const curve = costCurve(result);
      const at = (value: (point: (typeof curve)[number]) => number) =>
        curve.map((point) => ({
          x: point.rate,
          y: value(point),
          ...(point.closedLoop ? { flagged: 'closed loop' } : {}),
        }));
      const processes: Series[] = result.usage.map(({ name }, index) => ({
        name,
        color: PALETTE[(index + 1) % PALETTE.length] ?? '#333',
        stroke: 'dashed',
        points: at(({ byProcess }) => byProcess.find((each) => each.name === name)?.us ?? NaN),
      }));
      return lineChart({
        id: `cost-curve-${result.variant}-${String(result.round)}`,
        title: `${label(result)}: CPU per create against offered rate, by process (hollow: the closed loop)`,
        xLabel: 'creates per second offered (the closed loop: answered)',
        yLabel: 'µs of CPU per create',
        series: [
          { name: 'all processes', color: PALETTE[0], points: at((p) => p.totalUs) },
          ...processes,
        ],
      });
    });
}
