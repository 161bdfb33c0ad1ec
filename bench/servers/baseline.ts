// The two baselines of `npm run bench`, behind the gateway's own HTTP layer (auth, lossless
// parsing, validation, error handling):
//   ceiling — answers 200 without any I/O;
//   direct  — stores each plant straight into MongoDB, one write per request, with the writer's
//             duplicate rules: what a user would build instead of going through Kafka.
import { MongoClient } from 'mongodb';
import { TOPICS } from '../../shared/contracts/kafka.ts';
import { plantOf } from '../../shared/contracts/plant.ts';
import { createLogger } from '../../shared/logger.ts';
import { buildApp, type AppDeps } from '../../services/gateway/src/app.ts';
import { gatewayMetrics } from '../../services/gateway/src/metrics.ts';
import { staticTokenVerifier } from '../../services/gateway/src/static-tokens.ts';
import { createPlants } from '../../services/writer/src/create-plants.ts';
import { plantStore } from '../../services/writer/src/plant-store.ts';

const mode = process.argv[2];
const { PORT = '0', AUTH_TOKENS = '', MONGODB_URI = '' } = process.env;

async function createPlantFor(): Promise<AppDeps['createPlant']> {
  if (mode === 'ceiling') return (plant) => Promise.resolve({ status: 200, plant: plantOf(plant) });
  if (mode !== 'direct') throw new Error('usage: baseline.ts ceiling|direct');
  const client = await new MongoClient(MONGODB_URI, { useBigInt64: true }).connect();
  const store = plantStore(client.db('plantstore'));
  return async (plant) => {
    const [reply] = await createPlants([plant], store);
    if (reply === undefined) throw new Error('no outcome');
    return reply;
  };
}

const app = await buildApp({
  createPlant: await createPlantFor(),
  logger: createLogger(`bench-${mode}`, 'warn'),
  tokenVerifiers: [staticTokenVerifier(AUTH_TOKENS.split(','))],
  bodyLimitBytes: 16_384,
  requestTimeoutMs: 10_000,
  maxEventLoopDelayMs: 1_000,
  notReadyReason: () => undefined,
  isStopping: () => false,
  metrics: gatewayMetrics(() => 0),
  topics: TOPICS,
});
await app.listen({ port: Number(PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
