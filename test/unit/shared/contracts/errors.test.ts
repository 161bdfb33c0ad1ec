import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#local/provision/paths.ts';
import { ERRORS } from '#shared/contracts/errors.ts';

/** The rows of the reference's table of `error` values over HTTP: error, HTTP status, when. */
function referenceRows(): string[][] {
  return readFileSync(join(projectRoot, 'docs', 'reference', 'error-codes.md'), 'utf8')
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
  it('When docs/reference/error-codes.md lists the error values over HTTP, then its table is ERRORS: every code, its status and when it is answered, in order', () => {
    const described = Object.values(ERRORS).map(({ error, status, when }) => [
      String(error),
      String(status),
      when,
    ]);

    expect(referenceRows()).toEqual(described);
  });
});
