import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { projectFiles } from '../../support/checks/project-files.ts';

/**
 * Notes that were never part of the repository: whoever clones it cannot follow a reference to
 * them, so the reasons they held belong in docs/decisions/ or beside the code.
 */
const OUTSIDE_DOCUMENTS = [/\b(?:DESIGN|STYLE)\.md\b/i, /\bDESIGN\s*§/, /\/work\/shared\b/];

/** `file:line: text` for every line of a text file of the project that cites one of them. */
function outsideCitations(): string[] {
  return projectFiles().flatMap((file) => {
    const path = join(projectRoot, file);
    if (!statSync(path).isFile()) return [];
    const bytes = readFileSync(path);
    if (bytes.includes(0)) return [];
    return bytes
      .toString('utf8')
      .split('\n')
      .flatMap((line, index) =>
        OUTSIDE_DOCUMENTS.some((pattern) => pattern.test(line))
          ? [`${file}:${String(index + 1)}: ${line.trim()}`]
          : [],
      );
  });
}

describe('References from the project to documents outside it', () => {
  it('When every text file of the project is read, then none cites the design or style notes kept outside the repository', () => {
    expect(outsideCitations()).toEqual([]);
  });
});
