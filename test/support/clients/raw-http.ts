import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Header lines in the order given; an array repeats the header, undefined leaves it out. */
export type RawHeaders = Record<string, string | readonly string[] | undefined>;

/** Bytes sent at once, or `head` then `trickle` one byte every `everyMs`. */
export type RawRequest = Buffer | { head: Buffer; trickle: Buffer; everyMs: number };

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request exactly as written: names, values and framing are neither checked nor fixed. */
export function rawRequest(
  requestLine: string,
  headers: RawHeaders,
  body: Buffer = Buffer.alloc(0),
): Buffer {
  const lines = Object.entries(headers).flatMap(([name, value]) =>
    value === undefined ? [] : [value].flat().map((item) => `${name}: ${item}`),
  );
  return Buffer.concat([Buffer.from([requestLine, ...lines, '', ''].join('\r\n'), 'latin1'), body]);
}

/**
 * Sends a request on a connection of its own and reads the first final answer (1xx interim
 * answers are skipped); undefined when the server closes without one.
 */
export function exchange(port: number, request: RawRequest): Promise<RawResponse | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    const finish = () => {
      socket.destroy();
      resolve(parseResponse(received)?.response);
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parseResponse(received)?.complete) finish();
    });
    socket.on('close', finish);
    // A server that refuses early may reset the connection while the client still writes.
    socket.on('error', () => undefined);
    if (Buffer.isBuffer(request)) socket.write(request);
    else void trickle(socket, request);
  });
}

async function trickle(
  socket: Socket,
  request: { head: Buffer; trickle: Buffer; everyMs: number },
): Promise<void> {
  if (request.head.length > 0) socket.write(request.head);
  for (const byte of request.trickle) {
    await sleep(request.everyMs);
    if (!socket.writable) return;
    socket.write(Buffer.of(byte));
  }
}

/** The first final response in `bytes`, once its head has arrived, and whether its body is whole. */
export function parseResponse(
  bytes: Buffer,
): { response: RawResponse; complete: boolean } | undefined {
  let start = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', start);
    if (end === -1) return undefined;
    const [statusLine = '', ...lines] = bytes.toString('latin1', start, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(statusLine)?.[1]);
    if (status >= 100 && status < 200) {
      start = end + 4;
      continue;
    }
    const headers = Object.fromEntries(
      lines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const body = bytes.subarray(end + 4);
    return {
      response: { status, headers, body: body.toString('utf8') },
      complete: body.length >= Number(headers['content-length'] ?? Infinity),
    };
  }
}
