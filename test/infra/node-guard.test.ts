import { spawnSync } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../deploy/local/paths.ts';
import { temporaryDirectory } from '../support/local-servers.ts';

const bootstrap = join(projectRoot, 'scripts', 'bootstrap.mjs');

function runBootstrap(path: string) {
  return spawnSync(process.execPath, [bootstrap], { env: { PATH: path }, encoding: 'utf8' });
}

describe('Node version guard of npm test and npm start', () => {
  it('When the scripts would run on Node 20, then it fails naming the pinned and the found version', async () => {
    const bin = await temporaryDirectory();
    await writeFile(join(bin, 'node'), '#!/bin/sh\necho 20.20.2\n');
    await chmod(join(bin, 'node'), 0o755);

    const result = runBootstrap(`${bin}${delimiter}/usr/bin${delimiter}/bin`);

    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'plant-store needs Node 24 (pinned as the devDependency "node": "24.21.0")',
    );
    expect(result.stderr).toContain('would run on Node 20.20.2');
  });

  it('When the pinned Node is first on PATH, then it passes', () => {
    const result = runBootstrap(`${dirname(process.execPath)}${delimiter}/usr/bin${delimiter}/bin`);

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});
