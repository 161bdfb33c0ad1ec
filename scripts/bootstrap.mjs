// Runs first in `npm test`, `npm run infra` and `npm start`, on whatever Node is on PATH (often
// an older system Node on a fresh clone). Plain JavaScript on purpose: it must work before
// Node 24 and TypeScript support are installed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies.node;
const requiredMajor = Number(pinned.split('.')[0]);

if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) {
  console.error('plant-store: dependencies are missing; running `npm ci` once.');
  const install = spawnSync('npm', ['ci'], { cwd: root, stdio: 'inherit' });
  if (install.status !== 0) {
    console.error('plant-store: `npm ci` failed; see its output above.');
    process.exit(install.status ?? 1);
  }
}

// `node` is resolved from PATH exactly as the next command of the npm script will resolve it.
const probe = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
const running = probe.stdout?.trim() ?? '';
if (Number(running.split('.')[0]) < requiredMajor || probe.status !== 0) {
  console.error(
    [
      `plant-store needs Node ${requiredMajor} (pinned as the devDependency "node": "${pinned}"),`,
      `but this command would run on Node ${running || 'unknown'}.`,
      'Run it through npm (`npm test`, `npm start`) after `npm ci` without --ignore-scripts,',
      'which installs the pinned Node into node_modules/.bin.',
    ].join('\n'),
  );
  process.exit(1);
}
