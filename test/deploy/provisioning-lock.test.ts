import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isProvisioned, provisionOnce } from '#local/provision/provision-cache.ts';
import { temporaryDirectory } from '../support/servers/local-servers.ts';

const run = promisify(execFile);
const fixture = join(import.meta.dirname, '..', 'fixtures', 'provision-fixture.ts');

describe('Provisioning cache', () => {
  it('When two processes provision at once, then one builds and the other waits and reuses it', async () => {
    const cache = await temporaryDirectory();
    const buildLog = join(cache, 'builds.log');

    const outputs = await Promise.all(
      [1, 2].map(() => run(process.execPath, [fixture, cache, buildLog])),
    );

    const builds = (await readFile(buildLog, 'utf8')).trim().split('\n');
    expect(builds).toHaveLength(1);
    expect(outputs.map(({ stdout }) => stdout.trim())).toEqual([
      join(cache, 'thing'),
      join(cache, 'thing'),
    ]);
    expect((await readdir(join(cache, 'thing'))).sort()).toEqual(['.complete', 'part-1', 'part-2']);
  });

  it('When a build fails, then nothing is left that looks provisioned and the next call builds again', async () => {
    const cache = await temporaryDirectory();

    await expect(
      provisionOnce(cache, 'thing', () => Promise.reject(new Error('download failed'))),
    ).rejects.toThrow('download failed');

    expect(isProvisioned(cache, 'thing')).toBe(false);
    expect((await readdir(cache)).filter((name) => name.startsWith('thing'))).toEqual([]);
    const dir = await provisionOnce(cache, 'thing', async () => {});
    expect(existsSync(join(dir, '.complete'))).toBe(true);
  });
});
