import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { freePort } from '#local/provision/ports.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { watchOutput } from '../support/processes/child-output.ts';
import { descendantPids, isAlive } from '../support/servers/infra-process.ts';
import { olderNodeDirectory } from '../support/processes/older-node.ts';
import { copyProjectFiles, projectFiles } from '../support/checks/project-files.ts';

/** A limit on hangs: `npm ci` and a first start took 51 s on two cores, 3-4 times that when loaded. */
const FIRST_START_TIMEOUT_MS = 600_000;

let clone: string;
let path: string;

beforeAll(async () => {
  clone = await mkdtemp(join(tmpdir(), 'plant-store-clone-'));
  await copyProjectFiles(projectFiles(), clone);
  path = [olderNodeDirectory(), '/usr/local/bin', '/usr/bin', '/bin'].join(delimiter);
}, 120_000);
afterAll(() => rm(clone, { recursive: true, force: true }));

describe('The first command on a fresh clone, with an older Node first on PATH', () => {
  it(
    'When `npm start` is the first command, then it installs the dependencies, starts on the pinned Node, the README curl returns 200, and Ctrl-C stops everything',
    async () => {
      const port = await freePort();
      const npm = spawn('npm', ['start', '--', '--dir', join(clone, '.local', 'start')], {
        cwd: clone,
        env: {
          PATH: path,
          HOME: process.env.HOME,
          PORT: String(port),
          KAFKA_BROKERS: inject('kafkaBrokers'),
          MONGODB_URI: inject('mongoUri'),
          MONGODB_DATABASE: `test-fresh-clone-${String(port)}`,
          AUTH_TOKENS: '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        // A process group of its own, as a terminal's foreground job: Ctrl-C signals all of it.
        detached: true,
      });
      onTestFinished(() => {
        for (const pid of descendantPids(npm.pid ?? 0)) process.kill(pid, 'SIGKILL');
        npm.kill('SIGKILL');
      });
      const { output, printed, exited } = watchOutput(npm, 'npm start');
      await printed('Ctrl-C stops everything.');
      const processes = descendantPids(npm.pid ?? 0);
      const token = /Development token: (\S+)/.exec(output())?.[1] ?? '';

      const response = await fetch(`http://127.0.0.1:${String(port)}/plants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"id": 1, "name": "Monstera", "tag": "aroid"}',
      });

      expect(output()).toContain('dependencies are missing; running `npm ci` once.');
      expect(output()).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ name: 'Monstera', tag: 'aroid' });
      process.kill(-(npm.pid ?? 0), 'SIGINT');
      await exited;
      expect(output().match(/SIGINT: stopping/g)).toEqual(['SIGINT: stopping']);
      expect(processes.filter(isAlive)).toEqual([]);
    },
    FIRST_START_TIMEOUT_MS,
  );

  // Once installed, npm puts node_modules/.bin first on PATH; a fresh clone's shell has not: it
  // runs each script's line with the older Node, as here.
  const scripts = packageJson.scripts as Record<string, string>;
  const typeScript = Object.keys(scripts).filter((name) =>
    scripts[name]?.startsWith('node scripts/run.mjs'),
  );
  const expectations: Record<string, { args: string[]; prints: string }> = {
    'start:gateway': { args: [], prints: 'Invalid configuration: KAFKA_BROKERS must be set' },
    'start:writer': { args: [], prints: 'Invalid configuration: KAFKA_BROKERS must be set' },
    test: {
      args: ['--project', 'unit', 'test/unit/tooling/statistics/percentile.test.ts'],
      prints: '1 passed',
    },
    'test:unit': { args: ['test/unit/tooling/statistics/percentile.test.ts'], prints: '1 passed' },
  };

  it('When any other script runs TypeScript, then it starts with scripts/run.mjs', () => {
    expect(typeScript.toSorted()).toEqual(
      [
        ...Object.keys(expectations),
        'bench',
        'chaos',
        'dlq',
        'infra',
        'report',
        'start',
        'test:deploy',
        'test:integration',
        'test:secured',
      ].toSorted(),
    );
  });

  it.for(typeScript.filter((name) => !name.startsWith('test:') || name === 'test:unit'))(
    'When `npm run %s` starts on the older Node, then its TypeScript runs on the pinned one',
    (name) => {
      const { args, prints } = expectations[name] ?? {
        args: ['--no-such-option'],
        prints: "Unknown option '--no-such-option'",
      };

      const result = spawnSync('sh', ['-c', `${scripts[name] ?? ''} "$@"`, 'sh', ...args], {
        cwd: clone,
        env: { PATH: path, HOME: process.env.HOME },
        encoding: 'utf8',
      });

      expect(`${result.stdout}${result.stderr}`).toContain(prints);
      expect(result.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
    },
  );
});
