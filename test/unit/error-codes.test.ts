import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { ERRORS } from '#shared/contracts/errors.ts';

/** The rows of the README's table of `error` values: error, HTTP status, when. */
function readmeRows(): string[][] {
  return readFileSync(join(projectRoot, 'README.md'), 'utf8')
    .split('\n')
    .filter((line) => /^\| \d{4} /.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

describe('The error codes, described once in shared/contracts/errors.ts', () => {
  it('When the README lists the error values, then its table is ERRORS: every code, its status and when it is answered, in order', () => {
    const described = Object.values(ERRORS).map(({ error, status, when }) => [
      String(error),
      String(status),
      when,
    ]);

    expect(readmeRows()).toEqual(described);
  });
});
