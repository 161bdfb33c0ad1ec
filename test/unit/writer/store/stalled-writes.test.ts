import { EventEmitter, once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { MongoNetworkTimeoutError, type MongoClient } from 'mongodb';
import { describe, expect, it, onTestFinished } from 'vitest';
import { failStalledWrites } from '#writer/store/stalled-writes.ts';
import { tcpServerForTest } from '#test/support/servers/loopback-server.ts';

/** The server's side of a connection that never reads: its client's writes pile up. */
const neverRead = (socket: Socket) => socket.pause();

/** A client whose topology lists `servers`, as the driver's event says it at connect. */
function clientOf(servers: readonly string[]): Pick<MongoClient, 'on' | 'off'> {
  const client = new EventEmitter();
  const stop = failStalledWrites(client as unknown as Pick<MongoClient, 'on' | 'off'>);
  onTestFinished(stop);
  const event = { newDescription: { servers: new Map(servers.map((server) => [server, {}])) } };
  client.emit('topologyDescriptionChanged', event);
  return client as unknown as Pick<MongoClient, 'on' | 'off'>;
}

/** Writes until the socket's buffers are full, then waits for `drain` as the driver does. */
async function stalledWrite(port: number): Promise<{ socket: Socket; drained: Promise<unknown> }> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  onTestFinished(() => {
    socket.destroy();
  });
  while (socket.write(Buffer.alloc(1024 * 1024)));
  const drained = once(socket, 'drain').then(
    () => 'drained',
    (error: unknown) => error,
  );
  return { socket, drained };
}

const settledWithin = (promise: Promise<unknown>, ms: number) =>
  Promise.race([
    promise,
    new Promise((resolve) =>
      setTimeout(() => {
        resolve('waiting');
      }, ms),
    ),
  ]);

describe('Writes to the store that wait for a drain the socket will not emit', () => {
  it('When a store connection is closed while a write waits for its drain, then the write fails with a timeout error naming the server', async () => {
    const port = await tcpServerForTest(neverRead);
    clientOf([`127.0.0.1:${String(port)}`]);
    const { socket, drained } = await stalledWrite(port);

    socket.destroy();

    const error = await settledWithin(drained, 2_000);
    expect(error).toBeInstanceOf(MongoNetworkTimeoutError);
    expect(error).toMatchObject({
      message: expect.stringContaining(
        `the connection to 127.0.0.1:${String(port)} was closed while a command was still being written to it`,
      ) as unknown,
    });
  });

  it('When a socket to a host that is not the store is closed so, then it is left as Node leaves it', async () => {
    const port = await tcpServerForTest(neverRead);
    clientOf(['127.0.0.1:1']);
    const { socket, drained } = await stalledWrite(port);

    socket.destroy();

    expect(await settledWithin(drained, 500)).toBe('waiting');
  });

  it('When a store connection is closed with nothing waiting for its drain, then no error is emitted', async () => {
    const port = await tcpServerForTest(neverRead);
    clientOf([`127.0.0.1:${String(port)}`]);
    const socket = connect({ host: '127.0.0.1', port });
    const errors: unknown[] = [];
    socket.on('error', (error) => errors.push(error));
    await once(socket, 'connect');

    socket.destroy();
    await once(socket, 'close');

    expect(errors).toEqual([]);
  });
});
