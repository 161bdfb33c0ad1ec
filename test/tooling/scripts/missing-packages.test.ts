import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';

describe('npm test on a machine without the packages its tests use', () => {
  it('When packages are missing and none can be installed (no apt-get on PATH), then the run stops before any test, naming each missing package and the command that installs them', () => {
    const { PATH: _path, ...env } = process.env;
    const run = spawnSync(
      process.execPath,
      [
        join(projectRoot, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--project',
        'integration',
        'test/gateway/admission.response.test.ts',
      ],
      {
        cwd: projectRoot,
        encoding: 'utf8',
        env: { ...env, PATH: '/nonexistent' },
        timeout: 50_000,
      },
    );
    const output = `${run.stdout}${run.stderr}`;

    expect(run.status).not.toBe(0);
    expect(output).toContain('Missing system packages (5):');
    for (const name of ['openjdk-17-jre-headless', 'maven', 'openssl', 'python3-venv', 'chromium'])
      expect(output).toContain(`  - ${name}, for `);
    expect(output).toContain('apt-get update && apt-get install -y openjdk-17-jre-headless maven');
    expect(output).not.toMatch(/Tests\s+\d+ (passed|failed)/);
  });
});
