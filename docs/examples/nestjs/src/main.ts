// `npm start -- <id> <name> [tag]`: creates one plant through the writer and prints its reply;
// exits 0 on 200, 1 on 400, 2 on usage or no reply.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { TimeoutError } from 'rxjs';
import { PlantStoreClient, type NewPlant } from './plant-store.client.js';
import { PlantStoreModule } from './plant-store.module.js';

const plant = plantFromArguments(process.argv.slice(2));
if (plant === undefined) {
  console.error('Usage: npm start -- <int64 id> <name> [tag]');
  process.exit(2);
}

const app = await NestFactory.createApplicationContext(PlantStoreModule, {
  logger: ['warn', 'error'],
});
try {
  const reply = await app.get(PlantStoreClient).createPlant(plant);
  console.log(JSON.stringify(reply));
  process.exitCode = reply.status === 200 ? 0 : 1;
} catch (error) {
  if (error instanceof TimeoutError) console.error(`No reply for plant ${plant.id} in time`);
  else console.error(error);
  process.exitCode = 2;
} finally {
  await app.close();
}

function plantFromArguments([id, name, tag]: string[]): NewPlant | undefined {
  if (id === undefined || !/^-?\d+$/.test(id) || name === undefined) return undefined;
  return tag === undefined ? { id: BigInt(id), name } : { id: BigInt(id), name, tag };
}
