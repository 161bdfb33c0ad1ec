// Every npm script that runs TypeScript starts here:
//   node scripts/run.mjs [--service] <entry> [args…]
// It runs on whatever `node` the script's shell found first on PATH, which on a fresh clone is
// often an older system Node: the shell looked it up before `npm ci` put the pinned Node into
// node_modules/.bin. So it installs the dependencies when they are missing, then runs the entry
// on the pinned Node by its full path, with the Node options of scripts/node-options.json ahead
// of the caller's NODE_OPTIONS. Plain JavaScript on purpose: it must work before Node 24 and
// TypeScript support are installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const scripts = dirname(fileURLToPath(import.meta.url));
const root = join(scripts, '..');
const pinned = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies.node;
const requiredMajor = Number(pinned.split('.')[0]);
const nodeOptions = JSON.parse(readFileSync(join(scripts, 'node-options.json'), 'utf8'));

const [first, ...rest] = process.argv.slice(2);
const service = first === '--service';
const [entry, ...args] = service ? rest : [first, ...rest];
if (entry === undefined) {
  console.error('usage: node scripts/run.mjs [--service] <entry> [args…]');
  process.exit(2);
}

installDependenciesIfMissing();
const node = pinnedNode();
// Ctrl-C and a closed terminal reach the whole foreground process group, the entry included, so
// passing them on would signal it twice. A SIGTERM is meant for this process alone: pass it on.
// Listening before the entry starts: it can be running, and be signalled, before spawn() returns.
let child;
process.on('SIGINT', () => {});
process.on('SIGHUP', () => {});
process.on('SIGTERM', () => child.kill('SIGTERM'));
child = spawn(node, [entry, ...args], {
  stdio: 'inherit',
  env: {
    ...process.env,
    NODE_OPTIONS: [
      ...nodeOptions.everyScript,
      ...(service ? nodeOptions.services : []),
      process.env.NODE_OPTIONS ?? '',
    ]
      .join(' ')
      .trim(),
  },
});
child.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
});

function installDependenciesIfMissing() {
  if (existsSync(join(root, 'node_modules', '.package-lock.json'))) return;
  console.error('plant-store: dependencies are missing; running `npm ci` once.');
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (install.status !== 0) {
    console.error('plant-store: `npm ci` failed; see its output above.');
    process.exit(install.status ?? 1);
  }
}

/** This Node when it is recent enough, else the one `npm ci` installed from the devDependency. */
function pinnedNode() {
  if (majorOf(process.versions.node) >= requiredMajor) return process.execPath;
  const installed = join(root, 'node_modules', '.bin', 'node');
  const probe = spawnSync(installed, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  const found = probe.status === 0 ? probe.stdout.trim() : '';
  if (majorOf(found) >= requiredMajor) return installed;
  console.error(
    [
      `plant-store needs Node ${String(requiredMajor)} (pinned as the devDependency "node": "${pinned}"),`,
      `but found Node ${process.versions.node} on PATH and ${found ? `Node ${found}` : 'none'} in node_modules/.bin.`,
      'Run `npm ci` without --ignore-scripts: it installs the pinned Node into node_modules/.bin.',
    ].join('\n'),
  );
  process.exit(1);
}

function majorOf(version) {
  return Number(version.split('.')[0]) || 0;
}
