import { axisTicks, escapeXml, figure, PALETTE, PLOT, type Tick } from './chart-frame.ts';

/** A chart of horizontal bars, one per row, named in the page by `id` (`data-chart`). */
export interface BarChart<Row> {
  id: string;
  title: string;
  xLabel: string;
  rows: readonly Row[];
}

export interface StackedRow {
  label: string;
  segments: readonly { name: string; value: number }[];
}

/**
 * Horizontal bars, one per row, each stacked from its segments (a process's CPU, a kind of
 * request); every segment carries its figure (`data-row`, `data-segment`, `data-value`).
 */
export function stackedBars({ id, title, xLabel, rows }: BarChart<StackedRow>): string {
  const names = [...new Set(rows.flatMap(({ segments }) => segments.map(({ name }) => name)))];
  const color = (name: string) => PALETTE[names.indexOf(name) % PALETTE.length] ?? '#333';
  const total = (row: StackedRow) => row.segments.reduce((sum, { value }) => sum + value, 0);
  const max = Math.max(1e-9, ...rows.map(total));
  const ticks = axisTicks(0, max);
  const scaleMax = Math.max(max, ticks.at(-1) ?? max);
  const px = (value: number) => (value / scaleMax) * PLOT.width;
  const band = PLOT.height / Math.max(1, rows.length);
  const body = rows.flatMap((row, index) => {
    const y = PLOT.top + index * band + band * 0.15;
    const height = band * 0.7;
    let x = PLOT.left;
    const rects = row.segments.map(({ name, value }) => {
      const rect = `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${px(value).toFixed(1)}" height="${height.toFixed(1)}" fill="${color(name)}" data-row="${escapeXml(row.label)}" data-segment="${escapeXml(name)}" data-value="${String(value)}"><title>${escapeXml(`${row.label}, ${name}: ${String(value)}`)}</title></rect>`;
      x += px(value);
      return rect;
    });
    return [
      ...rects,
      `<text x="${(x + 4).toFixed(1)}" y="${(y + height / 2 + 4).toFixed(1)}">${String(Math.round(total(row) * 10) / 10)}</text>`,
      `<text x="${String(PLOT.left - 4)}" y="${(y + height / 2 + 4).toFixed(1)}" text-anchor="end">${escapeXml(row.label)}</text>`,
    ];
  });
  const xTicks: Tick[] = ticks.map((value) => ({
    at: PLOT.left + px(value),
    label: String(value),
  }));
  return figure({
    id,
    kind: 'stacked-bars',
    title,
    xLabel,
    yLabel: '',
    xTicks,
    yTicks: [],
    body,
    legend: names.map((name) => ({ name, color: color(name), stroke: 'solid' as const })),
  });
}

export interface RangeRow {
  label: string;
  median: number;
  min: number;
  max: number;
}

/** A bar to each row's median with a whisker from its min to its max (`--repeat`). */
export function rangeBars({ id, title, xLabel, rows }: BarChart<RangeRow>): string {
  const max = Math.max(1e-9, ...rows.map((row) => row.max));
  const ticks = axisTicks(0, max);
  const scaleMax = Math.max(max, ticks.at(-1) ?? max);
  const px = (value: number) => PLOT.left + (value / scaleMax) * PLOT.width;
  const band = PLOT.height / Math.max(1, rows.length);
  const body = rows.flatMap((row, index) => {
    const y = PLOT.top + index * band + band * 0.2;
    const height = band * 0.6;
    const middle = y + height / 2;
    return [
      `<g class="range" data-row="${escapeXml(row.label)}" data-median="${String(row.median)}" data-min="${String(row.min)}" data-max="${String(row.max)}">`,
      `<rect x="${String(PLOT.left)}" y="${y.toFixed(1)}" width="${(px(row.median) - PLOT.left).toFixed(1)}" height="${height.toFixed(1)}" fill="${PALETTE[index % PALETTE.length] ?? '#333'}" opacity="0.75"/>`,
      `<line x1="${px(row.min).toFixed(1)}" x2="${px(row.max).toFixed(1)}" y1="${middle.toFixed(1)}" y2="${middle.toFixed(1)}" stroke="#222" stroke-width="2"/>`,
      `<line x1="${px(row.min).toFixed(1)}" x2="${px(row.min).toFixed(1)}" y1="${(middle - 6).toFixed(1)}" y2="${(middle + 6).toFixed(1)}" stroke="#222" stroke-width="2"/>`,
      `<line x1="${px(row.max).toFixed(1)}" x2="${px(row.max).toFixed(1)}" y1="${(middle - 6).toFixed(1)}" y2="${(middle + 6).toFixed(1)}" stroke="#222" stroke-width="2"/>`,
      `<title>${escapeXml(`${row.label}: median ${String(row.median)} (${String(row.min)}–${String(row.max)})`)}</title>`,
      '</g>',
      `<text x="${(px(row.max) + 6).toFixed(1)}" y="${(middle + 4).toFixed(1)}">${String(row.median)} (${String(row.min)}–${String(row.max)})</text>`,
      `<text x="${String(PLOT.left - 4)}" y="${(middle + 4).toFixed(1)}" text-anchor="end">${escapeXml(row.label)}</text>`,
    ];
  });
  return figure({
    id,
    kind: 'range-bars',
    title,
    xLabel,
    yLabel: '',
    xTicks: ticks.map((value) => ({ at: px(value), label: String(value) })),
    yTicks: [],
    body,
    legend: [],
  });
}
