import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runLogged } from '#local/process/run-logged.ts';
import { prepareSecurity } from '#local/secure-stack.ts';
import { startServerProcess } from '#local/process/server-process.ts';
import { waitUntilReady } from '#local/process/wait-until-ready.ts';
import { temporaryDirectory } from '../support/servers/local-servers.ts';

const neverAnswers = () => Promise.reject(new Error('connection refused'));

describe('Failures while starting a server', () => {
  it('When the server process exits during start-up, then the error names its log file and shows its last lines', async () => {
    const logFile = join(await temporaryDirectory(), 'server.log');
    const server = startServerProcess({
      name: 'Broken server',
      command: 'sh',
      args: ['-c', 'echo "address already in use" >&2; exit 3'],
      logFile,
    });

    const failure = waitUntilReady(server, neverAnswers, 30_000);

    await expect(failure).rejects.toThrow(
      `Broken server did not start: the process exited. Its log is ${logFile}`,
    );
    await expect(failure).rejects.toThrow('address already in use');
  });

  it('When the server never answers, then it is stopped after the deadline and the error says so', async () => {
    const logFile = join(await temporaryDirectory(), 'server.log');
    const server = startServerProcess({
      name: 'Silent server',
      command: 'sleep',
      args: ['30'],
      logFile,
    });

    await expect(waitUntilReady(server, neverAnswers, 500)).rejects.toThrow(
      'Silent server did not start: no answer within 500 ms',
    );
    expect(server.isRunning()).toBe(false);
  });

  it('When the server answers but never ready, then the error after the deadline quotes what the last look saw', async () => {
    const logFile = join(await temporaryDirectory(), 'server.log');
    const server = startServerProcess({
      name: 'Unready gateway',
      command: 'sleep',
      args: ['30'],
      logFile,
    });
    const notReady = () =>
      Promise.reject(new Error('readyz answered 503: {"code":5030,"message":"Not ready"}'));

    await expect(waitUntilReady(server, notReady, 500)).rejects.toThrow(
      'Unready gateway did not start: no answer within 500 ms (last seen: readyz answered 503: {"code":5030,"message":"Not ready"})',
    );
  });

  it('When a provisioning step fails, then the error names the command, its exit code and its log', async () => {
    const dir = await temporaryDirectory();
    const logFile = join(dir, 'provision.log');

    await expect(
      runLogged('sh', ['-c', 'echo "could not resolve artifact" >&2; exit 2'], {
        cwd: dir,
        logFile,
      }),
    ).rejects.toThrow(
      /`sh -c .*` failed \(exit 2\); log .*provision\.log:\n[\s\S]*could not resolve artifact/,
    );
  });

  it('When a step that is given secrets fails, then neither its log nor its error shows them', async () => {
    const dir = await temporaryDirectory();
    const logFile = join(dir, 'kafka.log');

    const failed = runLogged('sh', ['-c', 'exit 3', 'name=admin,password=s3cret-42'], {
      cwd: dir,
      logFile,
      secrets: ['s3cret-42'],
    });

    await expect(failed).rejects.toThrow('`sh -c exit 3 name=admin,password=[redacted]` failed');
    await expect(failed).rejects.not.toThrow('s3cret-42');
    expect(readFileSync(logFile, 'utf8')).not.toContain('s3cret-42');
  });

  it("When a secured stack's passwords file lacks a user, then preparing it names the file and the user", async () => {
    const dir = await temporaryDirectory();
    await mkdir(join(dir, 'tls'), { recursive: true });
    await writeFile(
      join(dir, 'tls', 'passwords.json'),
      JSON.stringify({ admin: 'a', gateway: 'g' }),
    );

    await expect(prepareSecurity(dir, join(dir, 'provision.log'))).rejects.toThrow(
      `${join(dir, 'tls', 'passwords.json')} has no password for writer, producer, dlq, store: delete ${dir} to start afresh`,
    );
  });
});
