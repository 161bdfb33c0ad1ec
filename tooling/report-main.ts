// The one module of tooling/ that imports bench/ and chaos/: it renders either tool's record.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { benchHtml } from '#bench/report/bench-html.ts';
import type { Report } from '#bench/report/results.ts';
import { chaosHtml, type ChaosRecord } from '#chaos/report/html-report.ts';
import { standaloneSvg } from './charts/chart-frame.ts';
import { commandLine, readFlags } from './cli/command-line.ts';

const USAGE = 'npm run report -- <bench or chaos run .json> [--image <main chart .svg>]';

/** The recorded run and where to write its main chart; `'help'` for --help. */
function reportArguments(args: string[]): { file: string; image: string | undefined } | 'help' {
  const flags = readFlags({ args, allowPositionals: true, options: { image: { type: 'string' } } });
  if (flags === 'help') return 'help';
  const [json] = flags.positionals;
  if (json === undefined || !json.endsWith('.json'))
    throw new Error('a recorded run, its .json file, is needed');
  return { file: json, image: flags.values.image };
}

/** `npm run report` with the flags `argv`: the page (and chart) written; 2 on a refused flag. */
export async function main(argv: string[]): Promise<void> {
  const { file, image } = commandLine(USAGE, () => reportArguments(argv));
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
}
