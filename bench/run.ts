// `npm run bench`: ceiling, direct, e2e and nestjs side by side on one machine, in one run (or
// --repeat N times, in alternating order), each on fresh ids; writes
// bench/results/<time>.{json,md,svg,html} and exits 1 when any request failed, 2 on a refused flag
// (`npm run bench -- --help` lists them).
import { main } from './main.ts';

await main(process.argv.slice(2));
