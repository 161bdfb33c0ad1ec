import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { projectFiles } from '../../support/checks/project-files.ts';

/** A metric name the services spell out whole in their sources (templated ones are not read). */
const METRIC_NAME = /['"`](plant_store_[a-z0-9_]+)['"`]/g;

/** Every metric name spelled out in the TypeScript of services/ and shared/. */
function namesInSources(): string[] {
  const names = projectFiles()
    .filter((file) => /^(?:services|shared)\/.*\.ts$/.test(file))
    .flatMap((file) =>
      [...readFileSync(join(projectRoot, file), 'utf8').matchAll(METRIC_NAME)].map(
        ([, name]) => name ?? '',
      ),
    );
  return [...new Set(names)].sort();
}

/** The names in the first cell of each row of docs/reference/metrics.md's tables. */
function namesInReference(): Set<string> {
  const reference = readFileSync(join(projectRoot, 'docs/reference/metrics.md'), 'utf8');
  return new Set(
    reference
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) =>
        [...(line.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map(([, name]) => name ?? ''),
      ),
  );
}

describe('The metrics reference', () => {
  it('When the services name a metric, then a row of docs/reference/metrics.md describes it', () => {
    const rows = namesInReference();
    const names = namesInSources();

    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((name) => !rows.has(name))).toEqual([]);
  });
});
