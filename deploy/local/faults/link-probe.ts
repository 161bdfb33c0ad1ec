import { connect } from 'node:net';
import { BSON } from 'mongodb';

/** What a request sent through a link on a fresh connection met. */
export type ProbeAnswer =
  /** The first byte of an answer came after this many ms. */
  | number
  /** Nothing came back within the wait, the connection open or still opening. */
  | 'silent'
  /** The connection was refused, reset or closed without an answer. */
  | 'closed';

/** Kafka's ApiVersions v0, which a broker answers before any authentication. */
export const KAFKA_API_VERSIONS = Buffer.from([0, 0, 0, 10, 0, 18, 0, 0, 0, 0, 0, 1, 0xff, 0xff]);

/** MongoDB's `hello` in an OP_MSG, which a server answers before any authentication. */
export function mongoHello(): Buffer {
  const document = BSON.serialize({ hello: 1, $db: 'admin' });
  // The message header (length, request id, response to, OP_MSG), no flags, one body section.
  const head = Buffer.alloc(21);
  head.writeInt32LE(head.length + document.length, 0);
  head.writeInt32LE(1, 4);
  head.writeInt32LE(2013, 12);
  return Buffer.concat([head, document]);
}

/** Sends `request` to `address` (host:port) on a fresh connection and waits for an answer. */
export function probeAnswer(
  address: string,
  request: Buffer,
  waitMs: number,
): Promise<ProbeAnswer> {
  const [host = '', port = ''] = address.split(/:(?=\d+$)/);
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    let sentAt = 0;
    const end = (answer: ProbeAnswer) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => {
      end('silent');
    }, waitMs);
    socket.once('connect', () => {
      sentAt = performance.now();
      socket.write(request);
    });
    socket.once('data', () => {
      end(performance.now() - sentAt);
    });
    socket.once('error', () => {
      end('closed');
    });
    socket.once('close', () => {
      end('closed');
    });
  });
}
