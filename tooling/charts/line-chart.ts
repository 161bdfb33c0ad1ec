import {
  axisTicks,
  escapeXml,
  figure,
  PALETTE,
  PLOT,
  type Tick,
  dashArray,
  type Stroke,
} from './chart-frame.ts';

interface Point {
  x: number;
  y: number;
  /** Drawn hollow and named in its tooltip: a point not to be taken at face value. */
  flagged?: string;
}

export interface Series {
  name: string;
  points: readonly Point[];
  /** Solid when absent. */
  stroke?: Stroke;
  /** The palette's next colour when absent. */
  color?: string;
}

/** A vertical line at `x` (a fault, a recovery), or a shaded span from `x` to `to`. */
export interface Mark {
  x: number;
  to?: number;
  label: string;
}

export interface LineChartOptions {
  /** Names the chart in the page (`data-chart`), for readers and for tests. */
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** `nines`: x is a percentile, spaced by its nines (50, 90, 99, 99.9 equally apart). */
  xScale?: 'linear' | 'nines';
  yScale?: 'linear' | 'log';
  marks?: readonly Mark[];
  /** A horizontal line, such as a latency target. */
  target?: { y: number; label: string };
}

const nines = (percentile: number) => -Math.log10(1 - Math.min(percentile, 99.999) / 100);

/**
 * A line chart as SVG: one polyline per series, each point a circle that carries its figures
 * (`data-series`, `data-x`, `data-y`) and a tooltip.
 */
export function lineChart(options: LineChartOptions): string {
  const { marks = [], target } = options;
  // A figure that is missing (NaN in memory, null in JSON) is left out rather than drawn at 0.
  const series = options.series.map((each) => ({
    ...each,
    points: each.points.filter(({ x, y }) => Number.isFinite(x) && Number.isFinite(y)),
  }));
  const points = series.flatMap(({ points: each }) => each);
  const toX = options.xScale === 'nines' ? nines : (x: number) => x;
  const log = options.yScale === 'log';
  const toY = log ? (y: number) => Math.log10(Math.max(y, 0.1)) : (y: number) => y;
  const xs = [...points.map(({ x }) => toX(x)), ...marks.flatMap(({ x, to }) => [x, to ?? x])];
  const ys = [...points.map(({ y }) => toY(y)), ...(target === undefined ? [] : [toY(target.y)])];
  // A percentile axis always runs to its last tick, points or not.
  const xFloor = options.xScale === 'nines' ? nines(100) : 1e-9;
  const [xMin, xMax] = [Math.min(0, ...xs), Math.max(xFloor, ...xs)];
  const [yMin, yMax] = log
    ? [Math.floor(Math.min(...ys, 0)), Math.ceil(Math.max(...ys, 1))]
    : [0, Math.max(1e-9, ...ys) * 1.05];
  const px = (x: number) => PLOT.left + ((toX(x) - xMin) / (xMax - xMin || 1)) * PLOT.width;
  const markX = (x: number) => PLOT.left + ((x - xMin) / (xMax - xMin || 1)) * PLOT.width;
  const py = (y: number) =>
    PLOT.top + PLOT.height - ((toY(y) - yMin) / (yMax - yMin || 1)) * PLOT.height;
  const xTicks: Tick[] =
    options.xScale === 'nines'
      ? [0, 50, 90, 99, 99.9, 99.99].map((value) => ({ at: px(value), label: String(value) }))
      : axisTicks(xMin, xMax).map((value) => ({ at: px(value), label: String(value) }));
  const yTicks: Tick[] = log
    ? Array.from({ length: yMax - yMin + 1 }, (_, index) => 10 ** (yMin + index)).map((value) => ({
        at: py(value),
        label: String(value),
      }))
    : axisTicks(0, yMax).map((value) => ({ at: py(value), label: String(value) }));
  const body = [
    ...marks.map((mark) => markSvg(mark, markX)),
    ...(target === undefined
      ? []
      : [
          `<line class="target" x1="${String(PLOT.left)}" x2="${String(PLOT.left + PLOT.width)}" y1="${py(target.y).toFixed(1)}" y2="${py(target.y).toFixed(1)}" stroke="#888" stroke-dasharray="6 3"/>`,
          `<text x="${String(PLOT.left + PLOT.width - 4)}" y="${(py(target.y) - 4).toFixed(1)}" text-anchor="end" fill="#555">${escapeXml(target.label)}</text>`,
        ]),
    ...series.map((each, index) =>
      seriesSvg(each, each.color ?? PALETTE[index % PALETTE.length] ?? '#333', px, py),
    ),
  ];
  return figure({
    ...options,
    kind: 'line',
    xTicks,
    yTicks,
    body,
    legend: series.map(({ name, stroke, color }, index) => ({
      name,
      color: color ?? PALETTE[index % PALETTE.length] ?? '#333',
      stroke: stroke ?? 'solid',
    })),
  });
}

function seriesSvg(
  { name, points, stroke }: Series,
  color: string,
  px: (x: number) => number,
  py: (y: number) => number,
): string {
  const path = points.map(({ x, y }) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
  const circles = points.map(
    ({ x, y, flagged }) =>
      `<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="${flagged === undefined ? '2.5' : '4'}" fill="${flagged === undefined ? color : 'white'}" stroke="${color}" data-series="${escapeXml(name)}" data-x="${String(x)}" data-y="${String(y)}"${flagged === undefined ? '' : ` data-flagged="${escapeXml(flagged)}"`}><title>${escapeXml(`${name}: ${String(y)} at ${String(x)}${flagged === undefined ? '' : ` (${flagged})`}`)}</title></circle>`,
  );
  return [
    `<g class="series" data-series="${escapeXml(name)}">`,
    `<polyline points="${path}" fill="none" stroke="${color}" stroke-width="1.5"${dashArray(stroke ?? 'solid')}/>`,
    ...circles,
    '</g>',
  ].join('');
}

function markSvg({ x, to, label }: Mark, px: (x: number) => number): string {
  const top = PLOT.top;
  const bottom = PLOT.top + PLOT.height;
  const data = `data-mark="${escapeXml(label)}" data-x="${String(x)}"${to === undefined ? '' : ` data-to="${String(to)}"`}`;
  const shape =
    to === undefined
      ? `<line x1="${px(x).toFixed(1)}" x2="${px(x).toFixed(1)}" y1="${String(top)}" y2="${String(bottom)}" stroke="#c0392b" stroke-dasharray="3 3"/>`
      : `<rect x="${px(x).toFixed(1)}" y="${String(top)}" width="${Math.max(1, px(to) - px(x)).toFixed(1)}" height="${String(PLOT.height)}" fill="#f1ecd9"/>`;
  return `<g class="mark" ${data}>${shape}<text x="${(px(x) + 3).toFixed(1)}" y="${String(top + 10)}" font-size="10" fill="#7b3b2b" transform="rotate(90 ${(px(x) + 3).toFixed(1)} ${String(top + 10)})">${escapeXml(label)}</text><title>${escapeXml(label)}</title></g>`;
}
