import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { removeOrphanedRelocations } from '#local/store/postgres-relocation.ts';

function folder(under: string, name: string, origin?: string, runningPid?: number): string {
  const path = join(under, name);
  mkdirSync(join(path, 'data'), { recursive: true });
  if (origin !== undefined) writeFileSync(join(path, 'origin'), origin);
  if (runningPid !== undefined) {
    writeFileSync(join(path, 'data', 'postmaster.pid'), `${String(runningPid)}\n/data\n`);
  }
  return path;
}

describe('removeOrphanedRelocations', () => {
  it('When a relocated PostgreSQL folder stands in for a stack folder that is gone, then it is removed unless its PostgreSQL runs', () => {
    const under = mkdtempSync(join(tmpdir(), 'relocations-'));
    onTestFinished(() => {
      rmSync(under, { recursive: true, force: true });
    });
    const stack = join(under, 'a-stack', 'mongo');
    mkdirSync(stack, { recursive: true });
    const gone = join(under, 'deleted-stack', 'mongo', 'postgres');

    const orphan = folder(under, 'plant-store-postgres-1', gone);
    const live = folder(under, 'plant-store-postgres-2', join(stack, 'postgres'));
    const unknown = folder(under, 'plant-store-postgres-3');
    const running = folder(under, 'plant-store-postgres-4', gone, process.pid);
    const unrelated = folder(under, 'something-else', gone);

    removeOrphanedRelocations(under);

    expect(existsSync(orphan)).toBe(false);
    expect([live, unknown, running, unrelated].map(existsSync)).toEqual([true, true, true, true]);
  });
});
