import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { toxiproxyClient, ToxiproxyError } from '#local/faults/toxiproxy-client.ts';
import { listenForTest } from '#test/support/servers/loopback-server.ts';

interface Request {
  method: string;
  path: string;
  body: unknown;
}

/** Records each request and answers as toxiproxy does: JSON, or the status and body given. */
async function fakeToxiproxy(
  answer: { status: number; body: string } = { status: 200, body: '{}' },
) {
  const requests: Request[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      requests.push({
        method: request.method ?? '',
        path: request.url ?? '',
        body: body === '' ? undefined : JSON.parse(body),
      });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  const port = await listenForTest(server);
  return { client: toxiproxyClient(`http://127.0.0.1:${String(port)}`), requests };
}

describe('Toxiproxy client', () => {
  it('When proxies and toxics are changed, then each request has the path and body toxiproxy v2 takes', async () => {
    const { client, requests } = await fakeToxiproxy();

    await client.createProxy({
      name: 'store w/1',
      listen: '127.0.0.1:0',
      upstream: '127.0.0.1:27017',
    });
    await client.setEnabled('store w/1', false);
    await client.addToxic('store w/1', {
      type: 'latency',
      attributes: { latency: 300, jitter: 50 },
    });
    await client.addToxic('store w/1', {
      name: 'stall',
      type: 'timeout',
      stream: 'upstream',
      toxicity: 0.3,
      attributes: { timeout: 0 },
    });
    await client.updateToxic('store w/1', 'stall', { attributes: { timeout: 100 } });
    await client.removeToxic('store w/1', 'stall');
    await client.getProxy('store w/1');
    await client.deleteProxy('store w/1');
    await client.reset();
    await client.version();

    const proxy = '/proxies/store%20w%2F1';
    expect(requests).toEqual([
      {
        method: 'POST',
        path: '/proxies',
        body: {
          name: 'store w/1',
          listen: '127.0.0.1:0',
          upstream: '127.0.0.1:27017',
          enabled: true,
        },
      },
      { method: 'POST', path: proxy, body: { enabled: false } },
      {
        method: 'POST',
        path: `${proxy}/toxics`,
        body: {
          type: 'latency',
          stream: 'downstream',
          toxicity: 1,
          attributes: { latency: 300, jitter: 50 },
        },
      },
      {
        method: 'POST',
        path: `${proxy}/toxics`,
        body: {
          name: 'stall',
          type: 'timeout',
          stream: 'upstream',
          toxicity: 0.3,
          attributes: { timeout: 0 },
        },
      },
      { method: 'POST', path: `${proxy}/toxics/stall`, body: { attributes: { timeout: 100 } } },
      { method: 'DELETE', path: `${proxy}/toxics/stall`, body: undefined },
      { method: 'GET', path: proxy, body: undefined },
      { method: 'DELETE', path: proxy, body: undefined },
      { method: 'POST', path: '/reset', body: undefined },
      { method: 'GET', path: '/version', body: undefined },
    ]);
  });

  it("When toxiproxy refuses a request, then the error has its status and toxiproxy's reason", async () => {
    const { client } = await fakeToxiproxy({
      status: 409,
      body: '{"error":"proxy already exists","status":409}',
    });

    const refused = client.createProxy({
      name: 'a',
      listen: '127.0.0.1:0',
      upstream: '127.0.0.1:1',
    });

    await expect(refused).rejects.toThrow(
      new ToxiproxyError(409, 'POST /proxies', 'proxy already exists'),
    );
    await expect(refused).rejects.toMatchObject({
      status: 409,
      message: 'toxiproxy answered 409 to POST /proxies: proxy already exists',
    });
  });

  it('When an error answer is not JSON, then its text is the reason', async () => {
    const { client } = await fakeToxiproxy({ status: 502, body: 'Bad Gateway\n' });

    await expect(client.removeToxic('a', 'b')).rejects.toThrow(
      'toxiproxy answered 502 to DELETE /proxies/a/toxics/b: Bad Gateway',
    );
  });
});
