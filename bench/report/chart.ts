import type { VariantResult } from './results.ts';

const WIDTH = 640;
const ROW = 28;
const LABEL = 90;
const PANEL = (WIDTH - LABEL - 40) / 2;
const escape = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

/** Two horizontal bar panels, throughput and p99 latency, one row per variant. */
export function toSvg(results: readonly VariantResult[], title: string): string {
  const maxRps = Math.max(1, ...results.map(({ load }) => load.requestsPerSecond));
  const maxP99 = Math.max(1, ...results.map(({ load }) => load.p99));
  const height = 70 + results.length * ROW;
  const bars = results.map(({ variant, load }, index) => {
    const y = 50 + index * ROW;
    const rpsWidth = (load.requestsPerSecond / maxRps) * (PANEL - 60);
    const p99Width = (load.p99 / maxP99) * (PANEL - 60);
    const p99X = LABEL + PANEL + 20;
    return [
      `<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end">${escape(variant)}</text>`,
      `<rect x="${LABEL}" y="${y}" width="${rpsWidth.toFixed(1)}" height="20" fill="#3a7d44"/>`,
      `<text x="${(LABEL + rpsWidth + 4).toFixed(1)}" y="${y + 15}">${load.requestsPerSecond}/s</text>`,
      `<rect x="${p99X}" y="${y}" width="${p99Width.toFixed(1)}" height="20" fill="#b5523b"/>`,
      `<text x="${(p99X + p99Width + 4).toFixed(1)}" y="${y + 15}">${load.p99} ms</text>`,
    ].join('\n  ');
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">`,
    `  <rect width="100%" height="100%" fill="white"/>`,
    `  <text x="10" y="18" font-size="14">${escape(title)}</text>`,
    `  <text x="${LABEL}" y="40">throughput (requests/s, higher is better)</text>`,
    `  <text x="${LABEL + PANEL + 20}" y="40">p99 latency (ms, lower is better)</text>`,
    `  ${bars.join('\n  ')}`,
    '</svg>',
    '',
  ].join('\n');
}
