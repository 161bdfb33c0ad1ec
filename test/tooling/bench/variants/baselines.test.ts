import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { httpIsReady } from '#local/process/http-ready.ts';
import { waitUntilReady } from '#local/process/wait-until-ready.ts';
import { startServerVariant } from '#bench/variants/variants.ts';

const TOKEN = 'baseline-token';

/** One of the bench's variants without a store, started, stopped when the test ends. */
async function startBaseline(variant: 'bare' | 'ceiling', env: NodeJS.ProcessEnv = {}) {
  const started = await startServerVariant(
    variant,
    { ...process.env, AUTH_TOKENS: TOKEN, LOG_LEVEL: 'warn', ...env },
    mkdtempSync(join(tmpdir(), 'baseline-')),
  );
  onTestFinished(() => started.server.stop());
  return started;
}

/** The same, once ready: its URL. */
async function readyBaseline(variant: 'bare' | 'ceiling') {
  const { server, url } = await startBaseline(variant);
  await waitUntilReady(server, () => httpIsReady(url), 30_000);
  return url;
}

const create = (url: string, body: string) =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body,
  });

describe('The bench’s bare variant', () => {
  it('When a plant is posted, then it is answered 200 with the plant, and what is not one 400', async () => {
    const url = await readyBaseline('bare');
    const body = '{"id":1152921504606846977,"name":"Plant 1","tag":"bench"}';

    const answered = await create(url, body);
    const refused = await create(url, '{"id":');
    const notPlant = await create(url, '[1]');
    const tooLarge = await create(url, `{"name":"${'x'.repeat(20_000)}"}`);
    const elsewhere = await fetch(`${url}/other`);

    expect([answered.status, await answered.text()]).toEqual([
      200,
      '{"name":"Plant 1","tag":"bench"}',
    ]);
    expect(answered.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(refused.status).toBe(400);
    expect(notPlant.status).toBe(400);
    expect(tooLarge.status).toBe(413);
    expect(elsewhere.status).toBe(404);
  });
});

describe('The bench’s ceiling variant', () => {
  it('When it answers creates, then they pass the gateway’s admission limit, which its metrics show at its start', async () => {
    const url = await readyBaseline('ceiling');

    const answered = await create(url, '{"id":7,"name":"Fern"}');
    const metrics = await (await fetch(`${url}/metrics`)).text();

    expect([answered.status, await answered.json()]).toEqual([200, { name: 'Fern' }]);
    expect(metrics).toMatch(/^plant_store_gateway_admission_limit(\{[^}]*\})? 1000$/m);
  });

  it('When LOG_LEVEL is not a level, then it stops at once and says which levels there are', async () => {
    const { server } = await startBaseline('ceiling', { LOG_LEVEL: 'loud' });

    expect((await server.exited).code).not.toBe(0);
    expect(readFileSync(server.logFile, 'utf8')).toContain(
      'LOG_LEVEL takes fatal, error, warn, info, debug, trace, silent',
    );
  });
});
