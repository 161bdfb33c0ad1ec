// `npm run infra`: Kafka and a MongoDB-protocol server in the foreground until Ctrl-C;
// exits 1 when a server failed, 2 on a refused flag (`npm run infra -- --help` lists them).
import { main } from './infra-main.ts';

await main(process.argv.slice(2));
