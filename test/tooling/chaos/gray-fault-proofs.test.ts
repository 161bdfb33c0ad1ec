import { spawn } from 'node:child_process';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import {
  provedPartlySilent,
  provedSilent,
  provedSlow,
  provedStopped,
} from '#chaos/scenarios/gray/fault-proofs.ts';
import { FaultNotMade } from '#chaos/scenarios/fault-not-made.ts';
import { KAFKA_API_VERSIONS, mongoHello, probeAnswer } from '#local/faults/link-probe.ts';
import { freePort } from '#local/provision/ports.ts';
import { ownToxiproxy, storeLink } from '../../support/servers/gray-links.ts';

const storeAddress = () => new URL(inject('mongoUri')).host;

describe('the gray scenarios check that their fault took, through the faulted path itself', () => {
  it('When Kafka and the store are sent their probe on a fresh connection, then each answers at once; a port nobody listens on is closed', async () => {
    const [broker = ''] = inject('kafkaBrokers').split(',');

    const answers = await Promise.all([
      probeAnswer(broker, KAFKA_API_VERSIONS, 3_000),
      probeAnswer(storeAddress(), mongoHello(), 3_000),
      probeAnswer(`127.0.0.1:${String(await freePort())}`, mongoHello(), 3_000),
    ]);

    expect(answers.slice(0, 2)).toEqual([expect.any(Number), expect.any(Number)]);
    expect(answers[2]).toBe('closed');
  });

  it('When a store link is healthy, then proving it silent ends the run as a fault not made; black-holed, it is silent', async () => {
    const link = await storeLink(await ownToxiproxy(), 'proof-silent');

    await expect(provedSilent('store-cut-one', 'the path', link.faults)).rejects.toThrow(
      /^chaos store-cut-one: FAULT NOT MADE: the path is not silent: a request through it was answered in \d+ ms; no target was judged$/,
    );
    await link.faults.blackHole();
    await expect(provedSilent('store-cut-one', 'the path', link.faults)).resolves.toBeUndefined();
  });

  it('When a store link is 300 ms slow each way, then it is proved 600 ms slow and not 2 s slow', async () => {
    const link = await storeLink(await ownToxiproxy(), 'proof-slow');
    for (const stream of ['upstream', 'downstream'] as const)
      await link.faults.add({ type: 'latency', stream, attributes: { latency: 300 } });

    await expect(provedSlow('store-slow', 'the path', link.faults, 600)).resolves.toBeUndefined();
    await expect(provedSlow('store-slow', 'the path', link.faults, 2_000)).rejects.toThrow(
      FaultNotMade,
    );
  });

  it('When a store link stalls none of its connections, then it is not proved partly silent; stalling 30 % of them, it is', async () => {
    const link = await storeLink(await ownToxiproxy(), 'proof-partly');

    await expect(provedPartlySilent('store-half-open', 'the path', link.faults)).rejects.toThrow(
      /FAULT NOT MADE: the path does not stall some connections and answer others: of 20 fresh ones, 0 met silence and 20 an answer/,
    );
    await link.faults.add({
      type: 'timeout',
      stream: 'downstream',
      toxicity: 0.3,
      attributes: { timeout: 0 },
    });
    await expect(
      provedPartlySilent('store-half-open', 'the path', link.faults),
    ).resolves.toBeUndefined();
  });

  it('When a process runs, then it is not proved stopped; after SIGSTOP, it is', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const pid = child.pid ?? 0;

    await expect(provedStopped('writer-frozen', 'sleep', pid)).rejects.toThrow(
      /^chaos writer-frozen: FAULT NOT MADE: sleep is not stopped: its state is [RS], not T; no target was judged$/,
    );
    child.kill('SIGSTOP');
    await expect(provedStopped('writer-frozen', 'sleep', pid)).resolves.toBeUndefined();
  });
});
