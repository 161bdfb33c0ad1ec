// `npm run chaos [-- --scenario NAME]`: the local stack under load from 32 clients while writers,
// gateways or brokers are changed the way operators and faults change them, or (the gray
// scenarios) while one process's path to Kafka or the store is made slow, silent or cut through
// toxiproxy; then every answer is checked against the store, and each change's figures and the
// scenario's targets are printed (docs/how-to/run-chaos.md). `--scenario gray` runs
// every gray scenario, one after another, each on a stack of its own.
// Exits 1 on any lost plant, wrong or unexpected answer, unsettled request, missed target, or
// (mixed) too few creates; 2 on a refused flag. chaos/README.md shows the parts.
import { main } from './main.ts';

await main(process.argv.slice(2));
