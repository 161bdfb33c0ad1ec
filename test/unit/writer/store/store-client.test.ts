import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MongoServerError } from 'mongodb';
import { storeRefusal, watchMonitor, type WatchedClient } from '#writer/store/store-client.ts';
import { createLogger } from '#shared/logger.ts';

/** A MongoClient's heartbeat events, close and connect: the driver's hang cannot be made on demand. */
function fakeClient() {
  const emitter = new EventEmitter();
  const close = vi.fn(() => Promise.resolve());
  const connect = vi.fn(() => Promise.resolve());
  const client = Object.assign(emitter, { close, connect }) as unknown as WatchedClient;
  return { client, close, connect, emit: (event: string) => emitter.emit(event, {}) };
}

const silent = createLogger('writer', 'silent');

describe('The watch on the store client’s monitor', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('When a check never ends, then the client is closed and connected again once it is 7 s old', async () => {
    const { client, close, connect, emit } = fakeClient();
    watchMonitor(client, silent);

    emit('serverHeartbeatStarted');
    await vi.advanceTimersByTimeAsync(7_000);
    expect(close).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1_000);

    expect(close).toHaveBeenCalledTimes(1);
    expect(connect).toHaveBeenCalledTimes(1);
  });

  it('When checks end, failed (a store that is down) or not, then the client is left alone', async () => {
    const { client, close, emit } = fakeClient();
    watchMonitor(client, silent);

    for (let check = 0; check < 10; check++) {
      emit('serverHeartbeatStarted');
      await vi.advanceTimersByTimeAsync(5_000);
      emit(check % 2 === 0 ? 'serverHeartbeatFailed' : 'serverHeartbeatSucceeded');
      await vi.advanceTimersByTimeAsync(2_000);
    }

    expect(close).not.toHaveBeenCalled();
  });

  it('When the store refuses the reconnect, then it is tried again every second until it connects', async () => {
    const { client, connect, emit } = fakeClient();
    connect.mockRejectedValueOnce(new Error('down')).mockRejectedValueOnce(new Error('down'));
    watchMonitor(client, silent);

    emit('serverHeartbeatStarted');
    await vi.advanceTimersByTimeAsync(15_000);
    await vi.advanceTimersByTimeAsync(2_000);

    expect(connect).toHaveBeenCalledTimes(3);
  });

  it('When the watch is stopped, then a stalled check changes nothing', async () => {
    const { client, close, emit } = fakeClient();
    const stop = watchMonitor(client, silent);

    stop();
    emit('serverHeartbeatStarted');
    await vi.advanceTimersByTimeAsync(60_000);

    expect(close).not.toHaveBeenCalled();
  });

  it('When closing the stalled client fails, then it is connected again all the same', async () => {
    const { client, close, connect, emit } = fakeClient();
    close.mockRejectedValueOnce(new Error('endSessions failed'));
    watchMonitor(client, silent);

    emit('serverHeartbeatStarted');
    await vi.advanceTimersByTimeAsync(15_000);

    expect(connect).toHaveBeenCalledTimes(1);
  });
});

describe('Settings the store refuses at start-up', () => {
  const serverError = (code: number, message: string) =>
    new MongoServerError({ code, errmsg: message, ok: 0 });

  it('When the credentials are refused, then the problem names MONGODB_URI and not its password', () => {
    expect(storeRefusal(serverError(18, 'Authentication failed.'), 'plantstore')).toBe(
      'the store refused the credentials in MONGODB_URI (Authentication failed.)',
    );
  });

  it('When the database is refused to the user (or to nobody signed in), then the problem names MONGODB_URI and MONGODB_DATABASE', () => {
    expect(
      storeRefusal(serverError(13, 'Command listCollections requires authentication'), 'plants'),
    ).toBe(
      'the store refused plants: check the user and password in MONGODB_URI, and MONGODB_DATABASE (Command listCollections requires authentication)',
    );
  });

  it("When the store's certificate is not trusted, then the problem names MONGODB_TLS_CA_FILE", () => {
    const tls = Object.assign(new Error('unable to verify the first certificate'), {
      code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    const selection = new Error('server selection failed', { cause: tls });

    expect(storeRefusal(selection, 'plantstore')).toBe(
      "the store's certificate is not trusted: check MONGODB_TLS_CA_FILE (unable to verify the first certificate)",
    );
  });

  it('When the store is down or fails otherwise, then that is no settings problem', () => {
    expect(storeRefusal(new Error('connect ECONNREFUSED 127.0.0.1:27017'), 'plantstore')).toBe(
      undefined,
    );
    expect(storeRefusal(serverError(11000, 'duplicate key'), 'plantstore')).toBe(undefined);
  });
});
