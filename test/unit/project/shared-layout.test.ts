import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { projectFiles } from '../../support/checks/project-files.ts';

const sources = projectFiles().filter((file) => file.startsWith('shared/') && file.endsWith('.ts'));
const readme = readFileSync(join(projectRoot, 'shared/README.md'), 'utf8');

describe('shared/ in folders by concern (what may import what: .dependency-cruiser.mjs)', () => {
  it('When a reader opens shared/, then at most ten files sit at its root and its README names every one and every folder', () => {
    const places = sources.map((file) => posix.dirname(posix.relative('shared', file)));
    const root = sources.filter((_, at) => places[at] === '.').map((file) => posix.basename(file));
    const folders = new Set(
      places.filter((place) => place !== '.').map((place) => place.split('/')[0] ?? place),
    );

    expect(root.length).toBeLessThanOrEqual(10);
    expect(folders.size).toBeGreaterThan(0);
    const unnamed = [...root, ...[...folders].map((folder) => `${folder}/`)].filter(
      (name) => !readme.includes(`\`${name}\``),
    );
    expect(unnamed).toEqual([]);
  });
});
