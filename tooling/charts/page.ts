import { escapeXml } from './chart-frame.ts';

/** A report rendered as one page, with its main chart kept apart. */
export interface RenderedReport {
  html: string;
  /** The chart that tells most, as its own figure: latency against offered rate, or throughput. */
  mainChart: string;
}

/**
 * One self-contained HTML page: inline style, SVG charts, no script and nothing fetched, so it
 * opens the same from a CI artefact, a mail or a laptop without a network.
 */
export function htmlPage(title: string, sections: readonly string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeXml(title)}</title>`,
    '<style>',
    'body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:1000px;color:#222;padding:0 1rem}',
    'figure{margin:1.5rem 0}figcaption{font-weight:600;margin-bottom:.3rem}',
    'table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:right}',
    'th:first-child,td:first-child{text-align:left}.missed{color:#b00020;font-weight:600}',
    'pre{background:#f6f6f6;padding:1rem;overflow:auto;font-size:12px}',
    '</style>',
    '</head>',
    '<body>',
    `<h1>${escapeXml(title)}</h1>`,
    ...sections,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** A table of plain cells; a row's cells are escaped. */
export function htmlTable(
  id: string,
  head: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const cells = (tag: string, row: readonly string[]) =>
    `<tr>${row.map((cell) => `<${tag}>${escapeXml(cell)}</${tag}>`).join('')}</tr>`;
  return `<table data-table="${escapeXml(id)}"><thead>${cells('th', head)}</thead><tbody>${rows.map((row) => cells('td', row)).join('')}</tbody></table>`;
}

export const paragraph = (text: string) => `<p>${escapeXml(text)}</p>`;
