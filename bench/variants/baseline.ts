// The two baselines of `npm run bench`, behind the gateway's own HTTP layer (auth, lossless
// parsing, validation, error handling) at the services' LOG_LEVEL:
//   ceiling — answers 200 without any I/O, within the gateway's admission limit;
//   direct  — stores each plant straight into MongoDB, one write per request, with the writer's
//             duplicate rules: what a user would build instead of going through Kafka.
import { MongoClient } from 'mongodb';
import { LOG_LEVELS } from '#shared/service-settings.ts';
import { plantOf } from '#shared/contracts/plant.ts';
import { createLogger } from '#shared/logger.ts';
import type { CreatePlant } from '#gateway/create-plant.ts';
import { baselineApp } from './baseline-app.ts';
import { createPlants } from '#writer/store/create-plants.ts';
import { plantStore } from '#writer/store/plant-store.ts';

const mode = process.argv[2];
const { PORT = '0', AUTH_TOKENS = '', MONGODB_URI = '', LOG_LEVEL = 'info' } = process.env;
const logLevel = LOG_LEVELS.find((level) => level === LOG_LEVEL);
if (logLevel === undefined) throw new Error(`LOG_LEVEL takes ${LOG_LEVELS.join(', ')}`);

async function createPlantFor(): Promise<CreatePlant> {
  if (mode === 'ceiling') {
    return (plant) =>
      Promise.resolve({ kind: 'answered', reply: { status: 200, plant: plantOf(plant) } });
  }
  if (mode !== 'direct') throw new Error('usage: baseline.ts ceiling|direct');
  const client = await new MongoClient(MONGODB_URI, { useBigInt64: true }).connect();
  const store = plantStore(client.db('plantstore'));
  return async (plant) => {
    const [reply] = await createPlants([plant], store);
    if (reply === undefined) throw new Error('no outcome');
    return { kind: 'answered', reply };
  };
}

// The ceiling is the shipped gateway but for what answers a create: its admission limit and log
// level too. direct is what a user would build instead: no admission limit.
const app = await baselineApp({
  logger: createLogger(`bench-${String(mode)}`, logLevel),
  authTokens: AUTH_TOKENS.split(','),
  createPlant: await createPlantFor(),
  admitted: mode === 'ceiling',
});
await app.listen({ port: Number(PORT), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
