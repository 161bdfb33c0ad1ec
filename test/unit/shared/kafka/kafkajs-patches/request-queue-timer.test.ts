import { createRequire } from 'node:module';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { checkHeldRequestsOnlyWhenHeld } from '#shared/kafka/kafkajs-patches/request-queue-timer.ts';

const require = createRequire(import.meta.url);

interface Queue {
  push(request: object): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  maybeThrottle(ms: number): void;
  destroy(): void;
}
const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as new (
  options: object,
) => Queue;

const logger = { debug: () => undefined, warn: () => undefined, error: () => undefined };

/** kafkajs's request queue of one connection, holding back requests beyond one in flight. */
function requestQueue() {
  const queue = new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'localhost:9092',
    logger,
  });
  onTestFinished(() => {
    queue.destroy();
  });
  const sent: number[] = [];
  const push = (correlationId: number) => {
    const answered = new Promise((resolve, reject) => {
      queue.push({
        entry: { correlationId, apiKey: 0, apiName: 'Produce', apiVersion: 0, resolve, reject },
        expectResponse: true,
        sendRequest: () => sent.push(correlationId),
      });
    });
    return answered;
  };
  const answer = (correlationId: number) => {
    queue.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });
  };
  return { queue, sent, push, answer };
}

describe('kafkajs request queues, checked only while they hold requests back', () => {
  checkHeldRequestsOnlyWhenHeld();

  it('When a request is answered and nothing is held back, then no timer is left behind', async () => {
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { sent, push, answer } = requestQueue();

    const answered = push(1);
    answer(1);
    await answered;

    expect(sent).toEqual([1]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('When a request is held back by the in-flight cap, then it is sent as soon as the one before is answered', async () => {
    const { sent, push, answer } = requestQueue();

    const first = push(1);
    const second = push(2);
    expect(sent).toEqual([1]);
    answer(1);
    await first;

    expect(sent).toEqual([1, 2]);
    answer(2);
    await second;
  });

  it('When the broker throttles the client, then a request pushed meanwhile is sent once the throttle ends', async () => {
    vi.useFakeTimers();
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { queue, sent, push, answer } = requestQueue();
    queue.maybeThrottle(50);

    const throttled = push(1);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(49);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);

    expect(sent).toEqual([1]);
    answer(1);
    await throttled;
    expect(vi.getTimerCount()).toBe(0);
  });
});
