import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { temporaryDirectory } from '../../support/servers/local-servers.ts';

const nodeOptions = JSON.parse(
  readFileSync(join(projectRoot, 'scripts', 'node-options.json'), 'utf8'),
) as { everyScript: string[]; services: string[] };

/**
 * A project whose package.json pins Node 99, so that the Node running these tests counts as the
 * older one, and whose node_modules/.bin/node is a shell script that says it is `installed`.
 */
async function projectPinningNode99(installedNode: string): Promise<string> {
  const root = await temporaryDirectory();
  await mkdir(join(root, 'scripts'));
  await mkdir(join(root, 'node_modules', '.bin'), { recursive: true });
  for (const file of ['run.mjs', 'node-options.json'])
    await copyFile(join(projectRoot, 'scripts', file), join(root, 'scripts', file));
  await writeFile(
    join(root, 'package.json'),
    JSON.stringify({ devDependencies: { node: '99.0.0' } }),
  );
  await writeFile(join(root, 'node_modules', '.package-lock.json'), '{}');
  await writeFile(join(root, 'node_modules', '.bin', 'node'), `#!/bin/sh\n${installedNode}\n`);
  await chmod(join(root, 'node_modules', '.bin', 'node'), 0o755);
  return root;
}

function fakeNode(version: string, run: string): string {
  return `if [ "$1" = -p ]; then echo ${version}; exit 0; fi\n${run}`;
}

describe('scripts/run.mjs, the start of every npm script that runs TypeScript', () => {
  it('When the Node running it is too old, then the entry runs on node_modules/.bin/node with the options of scripts/node-options.json before the caller’s NODE_OPTIONS', async () => {
    const root = await projectPinningNode99(
      fakeNode('99.1.0', 'echo "ran $* with NODE_OPTIONS=$NODE_OPTIONS"'),
    );

    const result = spawnSync(
      process.execPath,
      [join(root, 'scripts', 'run.mjs'), '--service', 'entry.ts', '--flag'],
      {
        env: { PATH: process.env.PATH, NODE_OPTIONS: '--max-old-space-size=512' },
        encoding: 'utf8',
      },
    );

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(
      `ran entry.ts --flag with NODE_OPTIONS=${[
        ...nodeOptions.everyScript,
        ...nodeOptions.services,
        '--max-old-space-size=512',
      ].join(' ')}`,
    );
  });

  it('When the entry is not a service, then it gets the options of every script and no heap caps', async () => {
    const root = await projectPinningNode99(fakeNode('99.1.0', 'echo "$NODE_OPTIONS"'));

    const result = spawnSync(process.execPath, [join(root, 'scripts', 'run.mjs'), 'entry.ts'], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    });

    expect(result.stdout.trim()).toBe(nodeOptions.everyScript.join(' '));
  });

  it('When no Node recent enough is on PATH or in node_modules, then it fails naming the pinned and the found versions', async () => {
    const root = await projectPinningNode99(fakeNode('24.0.0', 'echo ran'));

    const result = spawnSync(process.execPath, [join(root, 'scripts', 'run.mjs'), 'entry.ts'], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
    });

    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'plant-store needs Node 99 (pinned as the devDependency "node": "99.0.0")',
    );
    expect(result.stderr).toContain(
      `found Node ${process.versions.node} on PATH and Node 24.0.0 in node_modules/.bin`,
    );
  });

  it('When the entry exits, then the script exits with its code', async () => {
    const root = await projectPinningNode99(fakeNode('99.1.0', 'exit 3'));

    const result = spawnSync(process.execPath, [join(root, 'scripts', 'run.mjs'), 'entry.ts']);

    expect(result.status).toBe(3);
  });

  it('When the script is sent SIGTERM, then the entry receives it once and the script exits as the entry does', async () => {
    const root = await projectPinningNode99(
      fakeNode(
        '99.1.0',
        'trap \'echo "SIGTERM received"; exit 0\' TERM\necho ready\nwhile :; do sleep 0.05; done',
      ),
    );
    const script = spawn(process.execPath, [join(root, 'scripts', 'run.mjs'), 'entry.ts']);
    let output = '';
    const ready = new Promise<void>((resolve) => {
      script.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('ready')) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => script.once('exit', resolve));
    await ready;

    script.kill('SIGTERM');

    expect(await exited).toBe(0);
    expect(output.match(/SIGTERM received/g)).toEqual(['SIGTERM received']);
  });
});
