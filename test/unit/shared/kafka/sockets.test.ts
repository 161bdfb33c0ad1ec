import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { brokerSockets } from '#shared/kafka/sockets.ts';
import { tcpServerForTest } from '#test/support/servers/loopback-server.ts';

async function connected(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  onTestFinished(() => {
    socket.destroy();
  });
  return socket;
}

describe('The sockets of a Kafka client, by broker', () => {
  it('When a broker is replaced, then each of its sockets fails with the reason and the others stay open', async () => {
    const [first, second] = [await tcpServerForTest(), await tcpServerForTest()];
    const sockets = brokerSockets();
    const toFirst = [await connected(first), await connected(first)];
    const toSecond = await connected(second);
    for (const socket of toFirst) sockets.opened(`127.0.0.1:${String(first)}`, socket);
    sockets.opened(`127.0.0.1:${String(second)}`, toSecond);
    const failures = toFirst.map((socket) => once(socket, 'error'));

    const replaced = sockets.replace(`127.0.0.1:${String(first)}`, 'no answer in time');

    expect(replaced).toBe(2);
    for (const [error] of await Promise.all(failures))
      expect(error).toMatchObject({ message: 'no answer in time' });
    expect(toSecond.destroyed).toBe(false);
  });

  it('When a socket has closed, then replacing its broker no longer counts it', async () => {
    const port = await tcpServerForTest();
    const sockets = brokerSockets();
    const socket = await connected(port);
    sockets.opened(`127.0.0.1:${String(port)}`, socket);

    socket.destroy();
    await once(socket, 'close');

    expect(sockets.replace(`127.0.0.1:${String(port)}`, 'gone')).toBe(0);
  });
});
