import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandsPublished } from '../support/servers/gateway.ts';
import { postPlant, type Answer } from '../support/clients/http-client.ts';
import { aPlant } from '../support/clients/plants.ts';
import { serviceProcesses } from '../support/servers/services.ts';
import { startTestWriter } from '../support/servers/writer.ts';

const byValue = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

const DRAIN_MS = 1_000;

describe('A gateway process stopped with SIGTERM under load', () => {
  it('When SIGTERM arrives, then /readyz answers 503 at once, creates are still served while it drains, every accepted request is answered, and it exits 0', async () => {
    const harness = await startTestWriter();
    const services = serviceProcesses(harness);
    const { process: gateway, url } = await services.startGateway('gateway', {
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    });
    const answers = new Map<bigint, Answer & { order: number }>();
    const client = async () => {
      for (;;) {
        const plant = aPlant();
        const answer = await postPlant(url, plant.body);
        answers.set(plant.id, { ...answer, order: answers.size });
        if ('error' in answer) return;
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, client));
    await expect.poll(() => answers.size, { timeout: 30_000 }).toBeGreaterThan(200);

    gateway.kill('SIGTERM');
    // The signal reaches the process asynchronously: a probe sent in the same instant may be
    // read first, so probe until the first 503.
    let readiness = await fetch(`${url}/readyz`);
    while (readiness.status === 200) readiness = await fetch(`${url}/readyz`);
    const answeredBeforeNotReady = answers.size;
    const exit = await gateway.exited;
    await load;

    expect(readiness.status).toBe(503);
    expect(readiness.headers.get('retry-after')).toBe('1');
    expect(await readiness.json()).toEqual({ error: 5030, message: 'Not ready: shutting down' });
    expect(exit).toEqual({ code: 0, signal: null });

    // A client that ignores /readyz may still race the closing listener: its connection is
    // refused or reset before the request is read, or it gets 503. Nothing it sent is published.
    for (const answer of answers.values()) {
      if ('error' in answer) expect(['ECONNREFUSED', 'ECONNRESET']).toContain(answer.error);
      else if (answer.status !== 200) {
        expect(answer.status).toBe(503);
        expect(answer.headers['retry-after']).toBe('1');
        expect(JSON.parse(answer.body)).toMatchObject({ error: 5030 });
      }
    }
    const created = [...answers].filter(
      ([, answer]) => 'status' in answer && answer.status === 200,
    );
    const servedWhileDraining = created.filter(
      ([, answer]) => answer.order >= answeredBeforeNotReady,
    );
    expect(servedWhileDraining.length).toBeGreaterThan(0);
    for (const [id, answer] of created) {
      expect('body' in answer && JSON.parse(answer.body)).toEqual(aPlant({ id }).answer);
    }
    const stored = await harness.db
      .collection<{ _id: bigint }>('plants')
      .find({}, { projection: { _id: 1 } })
      .toArray();
    expect(stored.map(({ _id }) => _id).sort(byValue)).toEqual(
      created.map(([id]) => id).sort(byValue),
    );
    expect(await commandsPublished(harness)).toBe(created.length);
  });
});

describe('A gateway process whose stop is cut short', () => {
  it('When a second SIGTERM arrives while it drains, then it exits 1 at once, saying why', async () => {
    const harness = await startTestWriter({ writer: false });
    const services = serviceProcesses(harness);
    const { process: gateway } = await services.startGateway('gateway-twice', {
      SHUTDOWN_DRAIN_MS: '600000',
    });
    const log = () => readFileSync(gateway.logFile, 'utf8');

    gateway.kill('SIGTERM');
    await expect.poll(log, { timeout: 10_000 }).toContain('stopping: refusing new requests');
    gateway.kill('SIGTERM');

    expect(await gateway.exited).toEqual({ code: 1, signal: null });
    expect(log()).toContain('second signal: exiting before the stop finished');
  });

  it('When its stop outlasts SHUTDOWN_TIMEOUT_MS, then it exits 1, saying so', async () => {
    const harness = await startTestWriter({ writer: false });
    const services = serviceProcesses(harness);
    const { process: gateway } = await services.startGateway('gateway-slow-stop', {
      SHUTDOWN_DRAIN_MS: '600000',
      SHUTDOWN_TIMEOUT_MS: '200',
    });

    gateway.kill('SIGTERM');

    expect(await gateway.exited).toEqual({ code: 1, signal: null });
    expect(readFileSync(gateway.logFile, 'utf8')).toContain(
      'the stop took longer than SHUTDOWN_TIMEOUT_MS: exiting',
    );
  });
});
