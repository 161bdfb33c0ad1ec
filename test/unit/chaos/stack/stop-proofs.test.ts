import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { provedEnded, provedHeldPartitions, provedNotListening } from '#chaos/stack/stop-proofs.ts';

/** A process that ended, and its exit status. */
async function endedProcess(signal: 'SIGTERM' | 'SIGKILL') {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  child.kill(signal);
  const [code, ended] = await exited;
  return { service: { name: 'writer-2', pid: child.pid ?? 0 }, status: { code, signal: ended } };
}

describe('The proofs that a fleet change took', () => {
  it('When a service sent SIGKILL was ended by it and its pid is gone, then the kill is proved', async () => {
    const { service, status } = await endedProcess('SIGKILL');

    expect(() => {
      provedEnded('writer-kill', service, 'SIGKILL', status);
    }).not.toThrow();
  });

  it('When a service sent SIGKILL exited by itself, then the run ends: the fault was not made', async () => {
    const { service } = await endedProcess('SIGTERM');

    expect(() => {
      provedEnded('writer-kill', service, 'SIGKILL', { code: 0, signal: null });
    }).toThrow(
      'chaos writer-kill: FAULT NOT MADE: writer-2 was sent SIGKILL but exited with code 0',
    );
  });

  it('When the pid of a service said to have ended still runs, then the run ends', () => {
    expect(() => {
      provedEnded('rolling', { name: 'gateway-3', pid: process.pid }, 'SIGTERM', {
        code: 0,
        signal: null,
      });
    }).toThrow(`gateway-3 exited with code 0, yet its pid ${String(process.pid)} still runs`);
  });

  it('When a stopped writer held no partition, then the run ends', () => {
    expect(() => {
      provedHeldPartitions('writer-kill', { name: 'writer-1' }, []);
    }).toThrow('writer-1 held no partition of the create topic');
    expect(() => {
      provedHeldPartitions('writer-kill', { name: 'writer-1' }, [0, 3]);
    }).not.toThrow();
  });

  it('When something still listens at a killed gateway’s URL, then the run ends; once nothing does, the kill is proved', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const url = `http://127.0.0.1:${String(address.port)}`;
    onTestFinished(() => {
      server.close();
    });

    await expect(provedNotListening('gateways', url)).rejects.toThrow(
      `${url} still takes connections after its gateway was killed (accepted)`,
    );
    server.close();
    await once(server, 'close');
    await expect(provedNotListening('gateways', url)).resolves.toBeUndefined();
  });
});
