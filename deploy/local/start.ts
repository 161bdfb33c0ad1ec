// `npm start [-- --secure]`: the whole plant store on this machine (Kafka, the MongoDB-protocol
// server, one gateway, one writer) until Ctrl-C; with --secure on SASL_SSL, ACLs and a TLS store.
// KAFKA_BROKERS and MONGODB_URI, when both are set, replace the local servers. Exits 1 when the
// store failed, 2 on a refused flag (`npm start -- --help` lists them).
import { main } from './start-main.ts';

await main(process.argv.slice(2));
