import { describe, expect, it } from 'vitest';
import { commandsPublished, startTestGateway } from '../support/servers/gateway.ts';
import { aPlant } from '../support/clients/plants.ts';

describe('Requests waiting for writers are bounded', () => {
  it('When MAX_IN_FLIGHT requests already wait for a writer, then the next gets 503/5030 with Retry-After at once and is not published', async () => {
    const gateway = await startTestGateway({
      writer: false,
      maxInFlight: 2,
      replyTimeoutMs: 3_000,
    });
    const create = () => gateway.post(aPlant().body);

    const waiting = [create(), create()];
    let waitingAnswered = false;
    void Promise.all(waiting).then(() => {
      waitingAnswered = true;
    });
    await expect.poll(() => commandsPublished(gateway)).toBe(2);
    const refused = await create();
    const refusedWhileOthersWait = !waitingAnswered;

    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({
      error: 5030,
      message: '2 requests are already waiting for writers; retry shortly',
    });
    expect(refusedWhileOthersWait).toBe(true);
    expect((await Promise.all(waiting)).map(({ statusCode }) => statusCode)).toEqual([504, 504]);
    expect(await commandsPublished(gateway)).toBe(2);
    expect((await create()).statusCode).toBe(504);
  });
});
