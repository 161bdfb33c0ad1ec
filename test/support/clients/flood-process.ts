// A child process that floods an HTTP port until told to stop (`connection-flood.ts` forks it):
// its own event loop and descriptors, so the test's own client is not slowed by its sockets.
import { connect, type Socket } from 'node:net';
import autocannon from 'autocannon';
import type { FloodCounts, FloodPlan } from './connection-flood.ts';

const plan = JSON.parse(process.argv[2] ?? '') as FloodPlan;
const counts: FloodCounts = { opened: 0, closed: 0, closedUnanswered: 0, answered: {} };
let stopping = false;
const sockets = new Set<Socket>();

function answered(status: string) {
  counts.answered[status] = (counts.answered[status] ?? 0) + 1;
}

/** One connection of the flood, opened again as soon as it closes. */
function hold(send: (socket: Socket) => void) {
  if (stopping) return;
  const socket = connect(plan.port, '127.0.0.1');
  sockets.add(socket);
  counts.opened += 1;
  let status: string | undefined;
  socket.setNoDelay(true);
  socket.on('connect', () => {
    send(socket);
  });
  socket.on('data', (chunk: Buffer) => {
    status ??= /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1', 0, 12))?.[1] ?? '?';
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    sockets.delete(socket);
    counts.closed += 1;
    if (status === undefined) counts.closedUnanswered += 1;
    else answered(status);
    setImmediate(() => {
      hold(send);
    });
  });
}

/** The head of a create with a valid token and a body of `bodyBytes`, then all but its last byte, slowly. */
function slowBody(socket: Socket, slow: Extract<FloodPlan, { kind: 'slow-bodies' }>) {
  const { bodyBytes, chunkBytes, everyMs, token } = slow;
  socket.write(
    `POST /plants HTTP/1.1\r\nhost: flood.test\r\nauthorization: Bearer ${token}\r\n` +
      `content-type: application/json\r\ncontent-length: ${String(bodyBytes)}\r\n\r\n`,
  );
  let sent = 0;
  const timer = setInterval(() => {
    const size = Math.min(chunkBytes, bodyBytes - 1 - sent);
    if (size <= 0 || socket.destroyed) {
      clearInterval(timer);
      return;
    }
    socket.write(Buffer.alloc(size, 0x20));
    sent += size;
  }, everyMs);
  socket.on('close', () => {
    clearInterval(timer);
  });
}

function wrongTokens(): Promise<void> {
  return new Promise((resolve) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${String(plan.port)}/plants`,
        connections: plan.connections,
        duration: 3_600,
        method: 'POST',
        headers: { authorization: 'Bearer not-a-token', 'content-type': 'application/json' },
        body: '{"id": 1, "name": "Fern"}',
      },
      () => {
        resolve();
      },
    );
    instance.on('response', (_client, statusCode) => {
      answered(String(statusCode));
    });
    instance.on('reqError', () => {
      counts.closedUnanswered += 1;
    });
    process.once('message', () => {
      instance.stop();
    });
  });
}

process.on('message', () => {
  stopping = true;
  for (const socket of sockets) socket.destroy();
  setImmediate(() => {
    process.send?.(counts, () => {
      process.exit(0);
    });
  });
});

if (plan.kind === 'wrong-tokens') void wrongTokens();
else {
  const send =
    plan.kind === 'slow-bodies'
      ? (socket: Socket) => {
          slowBody(socket, plan);
        }
      : () => undefined;
  for (let index = 0; index < plan.connections; index += 1) hold(send);
}
process.send?.('started');
