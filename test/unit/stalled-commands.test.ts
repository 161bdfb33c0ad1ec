import { EventEmitter } from 'node:events';
import type { MongoClient } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stalledCommands } from '../../services/writer/src/store/stalled-commands.ts';

/** A stand-in for the client's command events, emitted as the driver emits them: in the operation. */
function clientEvents() {
  const events = new EventEmitter();
  return {
    client: events as unknown as Pick<MongoClient, 'on'>,
    started: (requestId: number) =>
      events.emit('commandStarted', { requestId, commandName: 'insert', connectionId: 7 }),
    succeeded: (requestId: number) => events.emit('commandSucceeded', { requestId }),
    failed: (requestId: number) => events.emit('commandFailed', { requestId }),
  };
}

/** An operation that starts command `requestId` and then waits until its signal aborts. */
const waitingOn =
  (events: ReturnType<typeof clientEvents>, requestId: number) => (signal: AbortSignal) => {
    events.started(requestId);
    return new Promise<never>((_, reject) => {
      signal.addEventListener('abort', () => {
        reject(signal.reason as Error);
      });
    });
  };

describe('Operations whose commands may outlive their connections', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('When a command has neither succeeded nor failed after the bound, then its operation is aborted, saying which command on which connection', async () => {
    const events = clientEvents();
    const operation = stalledCommands(events.client, 3_500).run(waitingOn(events, 1));
    const settled = operation.catch((error: unknown) => error);

    await vi.advanceTimersByTimeAsync(3_499);
    expect(await Promise.race([settled, Promise.resolve('waiting')])).toBe('waiting');
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled).toMatchObject({
      message:
        'the store sent nothing back to insert on connection 7 for 3500 ms: its connection timed out, and the driver would wait for it forever',
    });
  });

  it('When its commands succeed or fail in time, then the operation is never aborted, however long it goes on', async () => {
    const events = clientEvents();
    const stalled = stalledCommands(events.client, 3_500);
    const signals: AbortSignal[] = [];
    await stalled.run((signal) => {
      signals.push(signal);
      events.started(1);
      events.succeeded(1);
      events.started(2);
      events.failed(2);
      return Promise.resolve();
    });

    await vi.advanceTimersByTimeAsync(60_000);
    expect(signals[0]?.aborted).toBe(false);
  });

  it('When a command starts outside any operation (another client user, the driver’s own), then nothing is aborted', async () => {
    const events = clientEvents();
    const stalled = stalledCommands(events.client, 3_500);
    const signals: AbortSignal[] = [];
    const running = stalled.run(async (signal) => {
      signals.push(signal);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    });

    events.started(1);
    await vi.advanceTimersByTimeAsync(10_000);
    await running;
    expect(signals[0]?.aborted).toBe(false);
  });
});
