import { describe, expect, it } from 'vitest';
import { sendBatcher } from '../../services/gateway/src/send-batcher.ts';

function controllableSend() {
  const batches: number[][] = [];
  const releases: ((error?: Error) => void)[] = [];
  const sendAll = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push(items);
      releases.push((error) => {
        if (error) reject(error);
        else resolve();
      });
    });
  return { batches, releases, sendAll };
}

describe('Send batcher', () => {
  it('When idle, then a call is sent at once; calls made during a send go out together next', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = sendBatcher(sendAll);

    const first = send(1);
    expect(batches).toEqual([[1]]);
    const queued = [send(2), send(3), send(4)];
    expect(batches).toEqual([[1]]);
    releases[0]?.();
    await first;
    await Promise.resolve();

    expect(batches).toEqual([[1], [2, 3, 4]]);
    releases[1]?.();
    await Promise.all(queued);
  });

  it('When a send fails, then only the calls it carried fail', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = sendBatcher(sendAll);

    const first = send(1);
    const second = send(2);
    releases[0]?.(new Error('broker down'));
    await expect(first).rejects.toThrow('broker down');
    await Promise.resolve();
    releases[1]?.();

    await expect(second).resolves.toBeUndefined();
    expect(batches).toEqual([[1], [2]]);
  });

  it('When more calls queue than a batch may hold, then they are split', async () => {
    const { batches, releases, sendAll } = controllableSend();
    const send = sendBatcher(sendAll, 2);

    const calls = [send(1), send(2), send(3), send(4), send(5)];
    for (let index = 0; index < 3; index++) {
      releases[index]?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(calls);

    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });
});
