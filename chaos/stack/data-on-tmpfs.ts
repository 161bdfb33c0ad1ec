import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { storeDataFolder } from '#local/stack.ts';

/** Whose data a scenario fills: the store's or the broker's. */
export type DataFolder = 'mongo' | 'kafka';

/**
 * Where the data of `folder` will be for a stack in `stackDir`: the broker's in `<dir>/kafka`, the
 * store's wherever it really is (PostgreSQL's data moves to the system's temporary folder when
 * its user cannot reach the stack's, as under a `mktemp -d` clone run as root).
 */
export function dataFolderOf(
  stackDir: string,
  folder: DataFolder,
  store: 'sqlite' | 'postgresql' | undefined,
): string {
  return folder === 'kafka' ? join(stackDir, 'kafka') : storeDataFolder(stackDir, store);
}

/** A data folder on a filesystem of its own, so that filling it never fills the machine's disk. */
export interface TmpfsData {
  readonly dir: string;
  /** Fills what is free with one file, to the last page; resolves with its size. */
  fill(): Promise<number>;
  /** Deletes what `fill` wrote. */
  free(): Promise<void>;
  unmount(): void;
}

/** The mount failed, or the run is not root: the run is refused before it starts anything. */
export class TmpfsRefused extends Error {}

const BALLAST = 'chaos-ballast';
/** Zeros written until the filesystem is full: in MiB, then in pages for what is left. */
const CHUNKS = [1_048_576, 4_096];

/** Mounts a tmpfs of `sizeMb` on `dir` (`dataFolderOf`), before the stack puts its data there. */
export function mountTmpfs(dir: string, sizeMb: number): TmpfsData {
  if (process.getuid?.() !== 0)
    throw new TmpfsRefused(`mounting a tmpfs on ${dir} needs root; run the scenario as root`);
  mkdirSync(dir, { recursive: true });
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${String(sizeMb)}m`, 'tmpfs', dir], {
    encoding: 'utf8',
  });
  if (mount.status !== 0)
    throw new TmpfsRefused(
      `mount -t tmpfs on ${dir} failed: ${mount.error?.message ?? mount.stderr.trim()}`,
    );
  const ballast = join(dir, BALLAST);
  return {
    dir,
    async fill() {
      const file = await open(ballast, 'w');
      let written = 0;
      try {
        for (const size of CHUNKS) {
          const zeros = Buffer.alloc(size);
          for (;;) {
            const wrote = await file.write(zeros).then(
              ({ bytesWritten }) => bytesWritten,
              (error: unknown) => {
                if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return 0;
                throw error;
              },
            );
            written += wrote;
            if (wrote < size) break;
          }
        }
      } finally {
        await file.close();
      }
      return written;
    },
    free: () => rm(ballast, { force: true }),
    unmount() {
      const run = spawnSync('umount', ['--lazy', dir], { encoding: 'utf8' });
      if (run.status !== 0) console.warn(`umount ${dir} failed: ${run.stderr.trim()}`);
    },
  };
}
