import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { freePort } from '#local/provision/ports.ts';
import { watchOutput } from '../support/processes/child-output.ts';
import { childPids, isAlive } from '../support/servers/infra-process.ts';
import { temporaryDirectory } from '../support/servers/local-servers.ts';

describe('npm start', () => {
  it('When started, then it prints a URL and a development token with which the README curl returns 200, and Ctrl-C stops everything', async () => {
    const port = await freePort();
    const dir = await temporaryDirectory();
    const child = spawn(
      process.execPath,
      [join(projectRoot, 'deploy', 'local', 'start.ts'), '--dir', dir],
      {
        env: {
          ...process.env,
          PORT: String(port),
          KAFKA_BROKERS: inject('kafkaBrokers'),
          MONGODB_URI: inject('mongoUri'),
          AUTH_TOKENS: '',
          MONGODB_DATABASE: `test-start-${port}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const { output, printed, exited } = watchOutput(child, 'npm start');
    await printed('Ctrl-C stops everything.');
    const services = childPids(child.pid ?? 0);
    const token = /Development token: (\S+)/.exec(output())?.[1] ?? '';

    const response = await fetch(`http://127.0.0.1:${port}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id": 1, "name": "Monstera", "tag": "aroid"}',
    });

    expect(output()).toContain(`Plant store ready at http://127.0.0.1:${port}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
    expect(services).toHaveLength(2);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(services.filter(isAlive)).toEqual([]);
  });
});

describe('npm start with a writer group of its own', () => {
  it('When KAFKA_WRITER_GROUP names another group, then it is ready once the writer joins that group, and a create is answered 200', async () => {
    const port = await freePort();
    const group = `start-writers-${String(port)}`;
    const child = spawn(
      process.execPath,
      [join(projectRoot, 'deploy', 'local', 'start.ts'), '--dir', await temporaryDirectory()],
      {
        env: {
          ...process.env,
          PORT: String(port),
          KAFKA_BROKERS: inject('kafkaBrokers'),
          MONGODB_URI: inject('mongoUri'),
          AUTH_TOKENS: 'group-token',
          MONGODB_DATABASE: `test-start-${String(port)}`,
          KAFKA_WRITER_GROUP: group,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const { printed, exited } = watchOutput(child, 'npm start');
    await printed('Ctrl-C stops everything.');

    const response = await fetch(`http://127.0.0.1:${String(port)}/plants`, {
      method: 'POST',
      headers: { authorization: 'Bearer group-token', 'content-type': 'application/json' },
      body: '{"id": 2, "name": "Calathea"}',
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Calathea' });
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });
});

describe('npm start when its servers’ ports are taken', () => {
  it('When 127.0.0.1:9092 is in use, then it exits at once, naming the port and how to use the running servers', async () => {
    const holder = createServer().listen(9092, '127.0.0.1');
    await new Promise<void>((resolve) => {
      holder.once('listening', resolve);
      holder.once('error', () => {
        resolve();
      });
    });
    onTestFinished(() => {
      holder.close();
    });
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(await freePort()) };
    delete env.KAFKA_BROKERS;
    delete env.MONGODB_URI;

    const result = spawnSync(
      process.execPath,
      [join(projectRoot, 'deploy', 'local', 'start.ts'), '--dir', await temporaryDirectory()],
      {
        env,
        encoding: 'utf8',
      },
    );

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('127.0.0.1:9092 is already in use');
    expect(result.stderr).toContain('KAFKA_BROKERS and MONGODB_URI');
  });

  it('When --secure is asked for with KAFKA_BROKERS and MONGODB_URI set, then it refuses rather than run the services in plaintext', async () => {
    const result = spawnSync(
      process.execPath,
      [
        join(projectRoot, 'deploy', 'local', 'start.ts'),
        '--secure',
        '--dir',
        await temporaryDirectory(),
      ],
      {
        env: {
          ...process.env,
          PORT: String(await freePort()),
          KAFKA_BROKERS: inject('kafkaBrokers'),
          MONGODB_URI: inject('mongoUri'),
        },
        encoding: 'utf8',
      },
    );

    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      '--secure starts a secured local stack, but KAFKA_BROKERS and MONGODB_URI name servers of your own',
    );
  });
});
