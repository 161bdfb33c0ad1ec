// The bench's `bare` variant: a plain `node:http` server that reads a POST /plants body, parses
// it and answers 200 with its plant (`name`, and `tag` if present), as the ceiling does. No
// authentication, validation, limits, logging, metrics or tracing: the yardstick of what one
// request and answer cost in Node on this machine, against which the ceiling's protections are
// priced.
import { createServer } from 'node:http';

const { PORT = '0' } = process.env;
/** The ceiling's body limit: a bigger body is read to its end, not kept, and answered 413. */
const BODY_LIMIT_BYTES = 16 * 1024;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  let bytes = 0;
  request.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes <= BODY_LIMIT_BYTES) chunks.push(chunk);
  });
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    const answer = (status: number, json: Buffer | string) => {
      response.writeHead(status, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(json),
      });
      response.end(json);
    };
    if (request.method === 'GET' && request.url === '/readyz') {
      answer(200, '{"status":"ready"}');
      return;
    }
    if (request.method !== 'POST' || request.url !== '/plants') {
      answer(404, '{"error":"not found"}');
      return;
    }
    if (bytes > BODY_LIMIT_BYTES) {
      answer(413, '{"error":"too large"}');
      return;
    }
    let plant: unknown;
    try {
      plant = JSON.parse(body.toString('utf8'));
    } catch {
      plant = undefined;
    }
    if (typeof plant !== 'object' || plant === null || !('name' in plant)) {
      answer(400, '{"error":"not a plant"}');
      return;
    }
    const { name, tag } = plant as { name: unknown; tag?: unknown };
    answer(200, JSON.stringify(tag === undefined ? { name } : { name, tag }));
  });
});
server.listen(Number(PORT), '127.0.0.1');
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
