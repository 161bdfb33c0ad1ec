import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { cacheRoot, projectRoot } from '#local/provision/paths.ts';

const packageJson = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  devDependencies: { node: string };
};
const PINNED_MAJOR = Number(packageJson.devDependencies.node.split('.')[0]);
/** Provisioned when PATH has no older Node: the last Node 20 published for this platform. */
const OLDER_VERSION = '20.20.0';

function versionOf(node: string): string | null {
  const probe = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : null;
}

function isOlder(node: string): boolean {
  const version = versionOf(node);
  return version !== null && Number(version.split('.')[0]) < PINNED_MAJOR;
}

/**
 * A directory holding a `node` older than the pinned one, as a fresh machine has: the first such
 * Node on PATH, else the last Node 20 from the npm registry, installed once into the cache.
 */
export function olderNodeDirectory(): string {
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'node'))
    .find((node) => existsSync(node) && isOlder(node));
  if (onPath !== undefined) return dirname(onPath);
  const prefix = join(cacheRoot(), `node-${OLDER_VERSION}`);
  const node = join(
    prefix,
    'node_modules',
    `node-${process.platform}-${process.arch}`,
    'bin',
    'node',
  );
  if (!existsSync(node)) {
    execFileSync(
      'npm',
      [
        'install',
        '--prefix',
        prefix,
        '--no-save',
        '--no-audit',
        '--no-fund',
        `node-${process.platform}-${process.arch}@${OLDER_VERSION}`,
      ],
      { stdio: 'ignore' },
    );
  }
  return dirname(node);
}
