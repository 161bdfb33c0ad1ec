import { describe, expect, it } from 'vitest';
import { attachGateway, startTestGateway } from '../support/servers/gateway.ts';

describe('Two gateways on one reply topic', () => {
  it('When both create plants at once, then each answers its own requests with its own plants', async () => {
    const first = await startTestGateway();
    const second = await attachGateway(first);
    const ids = Array.from({ length: 20 }, (_, index) => 1_000 + index);

    const responses = await Promise.all(
      ids.map((id) =>
        (id % 2 === 0 ? first : second).post(JSON.stringify({ id, name: `Plant ${id}` })),
      ),
    );

    expect(responses.map((response) => [response.statusCode, response.json<unknown>()])).toEqual(
      ids.map((id) => [200, { name: `Plant ${id}` }]),
    );
  });
});
