import { createConnection, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { attachGateway, commandsPublished, TOKEN } from '../support/servers/gateway.ts';
import { startTestWriter } from '../support/servers/writer.ts';

describe('Gateway shut down under load', () => {
  it('When it is stopped while requests wait for replies, then every accepted request is answered', async () => {
    const harness = await startTestWriter();
    const { gateway } = await attachGateway(harness);
    const address = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const ids = Array.from({ length: 30 }, (_, index) => 5_000 + index);

    const responses = ids.map((id) =>
      fetch(`${address}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id, name: `Plant ${id}` }),
      }),
    );
    await harness.received(harness.topics.create, ids.length);
    const stopped = gateway.stop();

    const answers = await Promise.all(responses.map(async (response) => (await response).status));
    await stopped;
    expect(answers).toEqual(ids.map(() => 200));
    await expect(fetch(`${address}/healthz`)).rejects.toThrow();
  });
});

describe('Gateway while it stops', () => {
  it('When the shutdown begins, then /readyz answers 503/5030 at once, and a request that completes once it closes gets 503/5030 with Retry-After while the one in flight is still answered', async () => {
    const harness = await startTestWriter({ writer: false });
    const { gateway, post } = await attachGateway(harness, { replyTimeoutMs: 1_000 });
    const address = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const waiting = post('{"id": 1, "name": "Waiting"}');
    await expect.poll(() => commandsPublished(harness)).toBe(1);
    const late = await connect(new URL(address));
    const body = '{"id": 2, "name": "Late"}';
    late.write(
      `POST /plants HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${String(body.length)}\r\n`,
    );

    const stopped = gateway.stop();
    const readiness = await gateway.app.inject({ method: 'GET', url: '/readyz' });
    await expect.poll(() => gateway.app.server.listening).toBe(false);
    late.end(`\r\n${body}`);
    const lateAnswer = await text(late);
    await stopped;

    expect(readiness.statusCode).toBe(503);
    expect(readiness.headers['retry-after']).toBe('1');
    expect(readiness.json()).toEqual({ error: 5030, message: 'Not ready: shutting down' });
    expect(lateAnswer).toMatch(/^HTTP\/1\.1 503 /);
    expect(lateAnswer).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(lateAnswer).toMatch(/\r\nconnection: close\r\n/i);
    expect(JSON.parse(lateAnswer.slice(lateAnswer.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 5030,
      message: 'Shutting down; retry on another instance',
    });
    expect((await waiting).statusCode).toBe(504);
    expect(await commandsPublished(harness)).toBe(1);
  });
});

function connect(url: URL): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port) }, () => {
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

async function text(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}
