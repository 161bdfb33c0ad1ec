import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import {
  MongoNetworkTimeoutError,
  type MongoClient,
  type TopologyDescriptionChangedEvent,
} from 'mongodb';

/** Node publishes every TCP and TLS client socket it creates here (TLS from Node 21 on). */
const CLIENT_SOCKETS = 'net.client.socket';

/**
 * Fails the writes that the mongodb driver would wait for forever. When a command's bytes do not
 * fit in its socket's buffers, the driver (7.9) waits for the socket's `drain` event, and only an
 * `error` event or an abort ends that wait. Its socket timeout closes the connection with
 * `destroy()`, which emits neither, so an insert on a connection whose path stopped taking bytes
 * never settled, and held the partitions gathered into its batch.
 *
 * Every socket of the process that connects to one of `client`'s servers is watched: one that
 * closes while something still waits for its `drain` is given the error its close did not emit.
 * It is a timeout error, as the driver's own is: the operation is retried on another connection,
 * and the pool is left as it is. The bound is the driver's socket timeout, which counts idle time,
 * so a large insert that is slow but moving is never ended. Call before `client.connect()`.
 */
export function failStalledWrites(client: Pick<MongoClient, 'on' | 'off'>): () => void {
  const servers = new Set<string>();
  const onTopology = ({ newDescription }: TopologyDescriptionChangedEvent) => {
    for (const address of newDescription.servers.keys()) servers.add(address);
  };
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    watch(socket, (peer) => servers.has(peer));
  };
  client.on('topologyDescriptionChanged', onTopology);
  subscribe(CLIENT_SOCKETS, onSocket);
  return () => {
    unsubscribe(CLIENT_SOCKETS, onSocket);
    client.off('topologyDescriptionChanged', onTopology);
  };
}

function watch(socket: Socket, isServer: (peer: string) => boolean): void {
  let asked: string | undefined;
  socket.once(
    'lookup',
    (_error: Error | null, _address: string, _family: unknown, host: string) => {
      asked = host;
    },
  );
  socket.once('connect', () => {
    const { remoteAddress, remotePort } = socket;
    if (remotePort === undefined) return;
    const peers = [asked, remoteAddress]
      .filter((host) => host !== undefined)
      .map((host) => addressOf(host, remotePort));
    const peer = peers.find(isServer);
    if (peer === undefined) return;
    socket.once('close', () => {
      if (socket.listenerCount('drain') === 0 || socket.listenerCount('error') === 0) return;
      socket.emit(
        'error',
        new MongoNetworkTimeoutError(
          `the connection to ${peer} was closed while a command was still being written to it (its path stopped taking bytes for the socket timeout)`,
        ),
      );
    });
  });
}

/** As the driver writes a server's address: `host:port`, an IPv6 host in brackets. */
function addressOf(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host.toLowerCase()}:${String(port)}`;
}
