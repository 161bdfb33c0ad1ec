// `npm run report -- <file.json> [--image <file.svg>]`: renders a recorded bench report
// (bench/results/<time>.json) or chaos run (.local/chaos/<time>/run.json) again as its HTML page,
// beside the JSON, and with --image writes the page's main chart as an SVG file of its own.
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { chaosHtml, type ChaosRecord } from '../../chaos/html-report.ts';
import type { Report } from '../report.ts';
import { benchHtml } from './bench-html.ts';
import { standaloneSvg } from './chart-frame.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { image: { type: 'string' } },
});
const [file] = positionals;
if (file === undefined || !file.endsWith('.json')) {
  console.error('npm run report -- <bench or chaos run .json> [--image <main chart .svg>]');
  process.exit(2);
}
const recorded = JSON.parse(await readFile(file, 'utf8')) as Report | ChaosRecord;
const { html, mainChart } = 'scenario' in recorded ? chaosHtml(recorded) : benchHtml(recorded);
const page = file.replace(/\.json$/, '.html');
await writeFile(page, html);
console.log(`Written ${page}`);
if (values.image !== undefined) {
  await writeFile(values.image, standaloneSvg(mainChart));
  console.log(`Written ${values.image}`);
}
