import { describe, expect, it } from 'vitest';
import { postPlant } from '../support/clients/http-client.ts';
import { aPlant } from '../support/clients/plants.ts';
import { freshDeployment } from '../support/servers/fresh-deployment.ts';
import { serviceProcesses, writerHealthUrl } from '../support/servers/services.ts';

/** As in the measurement that found the race: more partitions, more metadata to propagate. */
const PARTITIONS = '12';
const ROUNDS = [1, 2, 3, 4, 5];

describe('A writer and three gateways started at once on a broker without their topics', () => {
  it.for(ROUNDS)(
    'When they all start together (round %i), then each comes up ready and a create through each gateway answers 200',
    { timeout: 180_000 },
    async () => {
      const services = serviceProcesses(await freshDeployment());
      const env = { KAFKA_PARTITIONS: PARTITIONS };

      const [writer, ...gateways] = await Promise.all([
        services.startWriter('writer', env),
        services.startGateway('gateway-1', env),
        services.startGateway('gateway-2', env),
        services.startGateway('gateway-3', env),
      ]);

      const writerReadyz = async () => (await fetch(`${writerHealthUrl(writer)}/readyz`)).status;
      await expect.poll(writerReadyz).toBe(200);
      for (const { url } of gateways) {
        expect((await fetch(`${url}/readyz`)).status).toBe(200);
        const plant = aPlant();
        const answer = await postPlant(url, plant.body);
        expect(answer).toMatchObject({ status: 200 });
        expect(JSON.parse((answer as { body: string }).body)).toEqual(plant.answer);
      }
    },
  );
});
