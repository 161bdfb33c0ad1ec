import { describe, expect, it } from 'vitest';
import { aPlant } from '../support/clients/plants.ts';
import { keptAliveConnection } from '../support/clients/steady-client.ts';
import { freshDeployment } from '../support/servers/fresh-deployment.ts';
import { serviceProcesses } from '../support/servers/services.ts';

const CLIENTS = 64;
const LOAD_MS = 10_000;
const ROUNDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/** `clients` connections, each sending its next create once the last is answered, for `ms`. */
async function closedLoop(url: string, clients: number, ms: number) {
  const statuses: (number | string)[] = [];
  const until = Date.now() + ms;
  const client = async () => {
    const { send } = keptAliveConnection(url);
    while (Date.now() < until) statuses.push((await send('POST', '/plants', aPlant().body)).status);
  };
  await Promise.all(Array.from({ length: clients }, client));
  return statuses;
}

const tally = (statuses: readonly (number | string)[]) =>
  Object.fromEntries(
    [...new Set(statuses)].map((status) => [
      status,
      statuses.filter((each) => each === status).length,
    ]),
  );

describe('A gateway and two writers started together on a broker without their topics', () => {
  it.for(ROUNDS)(
    'When 64 clients send creates in a closed loop from the moment the gateway is ready (round %i), then every create is answered 200 and stored, while the JIT, the Kafka connections and the writers warm up and the second writer joins the group',
    { timeout: 180_000 },
    async () => {
      const deployment = await freshDeployment();
      const services = serviceProcesses(deployment);
      const writers = Promise.all([
        services.startWriter('writer-1'),
        services.startWriter('writer-2'),
      ]);
      const { url } = await services.startGateway('gateway');

      const statuses = await closedLoop(url, CLIENTS, LOAD_MS);
      await writers;

      expect(tally(statuses)).toEqual({ 200: statuses.length });
      expect(await deployment.db.collection('plants').countDocuments()).toBe(statuses.length);
    },
  );
});
