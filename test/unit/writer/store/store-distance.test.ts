import { EventEmitter } from 'node:events';
import type { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { FAR_STORE_MS, storeDistance } from '#writer/store/store-distance.ts';

/** A client whose checks of the server the test makes, on a clock it moves. */
function checkedClient() {
  const events = new EventEmitter();
  const clock = { now: 0 };
  const distance = storeDistance(events as unknown as Pick<MongoClient, 'on'>, () => clock.now);
  const check = (duration: number, awaited = false) => {
    clock.now += 2_000;
    events.emit('serverHeartbeatSucceeded', { duration, awaited });
  };
  return { distance, check, clock };
}

describe('storeDistance', () => {
  it('When no check has answered, then the store is near', () => {
    expect(checkedClient().distance).toMatchObject({ far: false, roundTripMs: undefined });
  });

  it('When even the quickest check of the last 5 to 10 s took FAR_STORE_MS or more, then the store is far; a quicker check makes it near again', () => {
    const { distance, check } = checkedClient();

    check(FAR_STORE_MS);
    check(FAR_STORE_MS + 12);
    expect(distance).toMatchObject({ far: true, roundTripMs: FAR_STORE_MS });
    check(FAR_STORE_MS - 1);
    expect(distance.far).toBe(false);
    for (let round = 0; round < 5; round++) check(21);
    expect(distance).toMatchObject({ far: true, roundTripMs: 21 });
  });

  it('When a check was held by the server (a streamed check, MongoDB 4.4 on), then its duration says nothing of the distance', () => {
    const { distance, check } = checkedClient();

    check(2);
    for (let round = 0; round < 10; round++) check(10_000, true);
    expect(distance).toMatchObject({ far: false, roundTripMs: 2 });
  });
});
