// `npm run report -- <file.json> [--image <file.svg>]`: renders a recorded bench report
// (bench/results/<time>.json) or chaos run (.local/chaos/<time>/run.json) again as its HTML page
// (<time>.html; report.html beside a chaos run's JSON), and with --image writes the page's main
// chart as an SVG file of its own. Exits 2 on a refused flag.
import { main } from './report-main.ts';

await main(process.argv.slice(2));
