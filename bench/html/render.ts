// `npm run report -- <file.json> [--image <file.svg>]`: renders a recorded bench report
// (bench/results/<time>.json) or chaos run (.local/chaos/<time>/run.json) again as its HTML page
// (<time>.html; report.html beside a chaos run's JSON), and with --image writes the page's main chart as an SVG file of its own.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { chaosHtml, type ChaosRecord } from '#chaos/report/html-report.ts';
import type { Report } from '../report.ts';
import { benchHtml } from './bench-html.ts';
import { standaloneSvg } from './chart-frame.ts';

const USAGE = 'npm run report -- <bench or chaos run .json> [--image <main chart .svg>]';
let parsed: ReturnType<typeof parseArguments>;
try {
  parsed = parseArguments();
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
  process.exit(2);
}
const { file, image } = parsed;

function parseArguments(): { file: string; image: string | undefined } {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { image: { type: 'string' } },
  });
  const [json] = positionals;
  if (json === undefined || !json.endsWith('.json'))
    throw new Error('a recorded run, its .json file, is needed');
  return { file: json, image: values.image };
}
const recorded = JSON.parse(await readFile(file, 'utf8')) as Report | ChaosRecord;
const { html, mainChart } = 'scenario' in recorded ? chaosHtml(recorded) : benchHtml(recorded);
// Each page where its run wrote it: a chaos run's beside its run.json, a bench run's by its name.
const page =
  'scenario' in recorded ? join(dirname(file), 'report.html') : file.replace(/\.json$/, '.html');
await writeFile(page, html);
console.log(`Written ${page}`);
if (image !== undefined) {
  await writeFile(image, standaloneSvg(mainChart));
  console.log(`Written ${image}`);
}
