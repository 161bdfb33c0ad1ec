/** Where a chart's plot sits in its 760 × 340 SVG. */
const WIDTH = 760;
export const PLOT = { left: 64, top: 16, width: 480, height: 260 } as const;
/** A legend entry longer than this is cut, with its full name in its tooltip. */
const LEGEND_CHARS = 30;
/** Legend entries a chart's height holds, 16 units apart. */
const LEGEND_ROWS = 19;
const HEIGHT = 340;

/** Colours that stay apart for the colour-blind (Okabe and Ito), in order of use. */
export const PALETTE = [
  '#0072b2',
  '#d55e00',
  '#009e73',
  '#cc79a7',
  '#e69f00',
  '#56b4e9',
  '#000000',
  '#f0e442',
] as const;

export interface Tick {
  /** The position along its axis, in SVG units. */
  at: number;
  label: string;
}

/** How a series' line is drawn: its percentiles or runs told apart beside its colour. */
export type Stroke = 'solid' | 'dashed' | 'dotted';

/** The SVG attribute that draws `stroke` ('' for a solid line). */
export function dashArray(stroke: Stroke): string {
  if (stroke === 'solid') return '';
  return ` stroke-dasharray="${stroke === 'dashed' ? '6 3' : '1.5 2.5'}"`;
}

export interface LegendEntry {
  name: string;
  color: string;
  stroke: Stroke;
}

export const escapeXml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

/** About five round values from `min` to `max`: steps of 1, 2 or 5 times a power of ten. */
export function axisTicks(min: number, max: number): number[] {
  const span = max - min || 1;
  const magnitude = 10 ** Math.floor(Math.log10(span / 5));
  const step =
    [1, 2, 5, 10].map((each) => each * magnitude).find((each) => span / each <= 6) ??
    magnitude * 10;
  const ticks: number[] = [];
  for (let value = Math.ceil(min / step) * step; value <= max + step * 1e-9; value += step)
    ticks.push(Number(value.toPrecision(12)));
  return ticks;
}

/** A chart's frame: title, axes with their ticks and labels, the plot's body and a legend. */
export function figure({
  id,
  kind,
  title,
  xLabel,
  yLabel,
  xTicks,
  yTicks,
  body,
  legend,
}: {
  id: string;
  kind: string;
  title: string;
  xLabel: string;
  yLabel: string;
  xTicks: readonly Tick[];
  yTicks: readonly Tick[];
  body: readonly string[];
  legend: readonly LegendEntry[];
}): string {
  const bottom = PLOT.top + PLOT.height;
  const right = PLOT.left + PLOT.width;
  const axes = [
    `<line x1="${String(PLOT.left)}" x2="${String(right)}" y1="${String(bottom)}" y2="${String(bottom)}" stroke="#333"/>`,
    `<line x1="${String(PLOT.left)}" x2="${String(PLOT.left)}" y1="${String(PLOT.top)}" y2="${String(bottom)}" stroke="#333"/>`,
    ...xTicks.map(
      ({ at, label }) =>
        `<text x="${at.toFixed(1)}" y="${String(bottom + 14)}" text-anchor="middle">${escapeXml(label)}</text>`,
    ),
    ...yTicks.map(
      ({ at, label }) =>
        `<line x1="${String(PLOT.left)}" x2="${String(right)}" y1="${at.toFixed(1)}" y2="${at.toFixed(1)}" stroke="#eee"/><text x="${String(PLOT.left - 4)}" y="${(at + 4).toFixed(1)}" text-anchor="end">${escapeXml(label)}</text>`,
    ),
    `<text x="${String(PLOT.left + PLOT.width / 2)}" y="${String(bottom + 32)}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
    `<text x="14" y="${String(PLOT.top + PLOT.height / 2)}" text-anchor="middle" transform="rotate(-90 14 ${String(PLOT.top + PLOT.height / 2)})">${escapeXml(yLabel)}</text>`,
  ];
  // As many entries as the height holds; the rest are named in the points' tooltips.
  const shown = legend.length > LEGEND_ROWS ? legend.slice(0, LEGEND_ROWS - 1) : legend;
  const legendSvg = shown.map(
    ({ name, color, stroke }, index) =>
      `<g class="legend"><line x1="${String(right + 14)}" x2="${String(right + 34)}" y1="${String(PLOT.top + 8 + index * 16)}" y2="${String(PLOT.top + 8 + index * 16)}" stroke="${color}" stroke-width="3"${dashArray(stroke)}/><text x="${String(right + 38)}" y="${String(PLOT.top + 12 + index * 16)}">${escapeXml(name.length > LEGEND_CHARS ? `${name.slice(0, LEGEND_CHARS - 1)}…` : name)}<title>${escapeXml(name)}</title></text></g>`,
  );
  return [
    `<figure data-chart="${escapeXml(id)}" data-kind="${kind}">`,
    `<figcaption>${escapeXml(title)}</figcaption>`,
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${String(WIDTH)} ${String(HEIGHT)}" width="${String(WIDTH)}" height="${String(HEIGHT)}" font-family="sans-serif" font-size="11" role="img" aria-label="${escapeXml(title)}">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...axes,
    ...body,
    ...legendSvg,
    ...(shown.length === legend.length
      ? []
      : [
          `<text x="${String(right + 14)}" y="${String(PLOT.top + 12 + shown.length * 16)}">+${String(legend.length - shown.length)} more (see the tooltips)</text>`,
        ]),
    '</svg>',
    '</figure>',
  ].join('\n');
}

/** The SVG alone, with its title on top, as a file of its own (a committed image). */
export function standaloneSvg(figureHtml: string): string {
  const title = /<figcaption>(.*?)<\/figcaption>/s.exec(figureHtml)?.[1] ?? '';
  const svg = /<svg[\s\S]*<\/svg>/.exec(figureHtml)?.[0] ?? '';
  return `${svg
    .replace(
      /viewBox="0 0 (\d+) (\d+)" width="\d+" height="(\d+)"/,
      (_m, w: string, h: string) =>
        `viewBox="0 -24 ${w} ${String(Number(h) + 24)}" width="${w}" height="${String(Number(h) + 24)}"`,
    )
    .replace(
      '<rect width="100%" height="100%" fill="white"/>',
      `<rect y="-24" width="100%" height="100%" fill="white"/><text x="10" y="-8" font-size="13">${title}</text>`,
    )}\n`;
}
