import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot } from '#local/provision/paths.ts';
import { provisionOnce } from '#local/provision/provision-cache.ts';
import { runLogged } from '#local/process/run-logged.ts';
import { requireGo } from '../processes/run-tool.ts';

/** Prometheus's module as the Go module proxy serves it (the checksum database's hash). */
const PROMETHEUS = {
  module: 'github.com/prometheus/prometheus',
  version: 'v0.316.0',
  sum: 'h1:f1GRFerhTMKQma+awCoC9T820ecWeGSdF+xAlMHzZzM=',
};

/**
 * How long a hook that may build promtool waits: a limit on hangs. The build takes 2–4 minutes on
 * idle cores and took 30 minutes on two loaded ones.
 */
export const PROMTOOL_BUILD_LIMIT_MS = 3_600_000;

/**
 * promtool, built once per machine from the pinned Prometheus module (2–4 minutes; 1.9 GB of
 * module and build cache, removed after the build) and kept in the machine's cache.
 */
export async function promtool(): Promise<string> {
  requireGo('building promtool (once, then cached) for test/deploy/alerting-rules.test.ts', '1.25');
  const name = `promtool-${PROMETHEUS.version}`;
  const logFile = join(cacheRoot(), `${name}.install.log`);
  const home = await provisionOnce(cacheRoot(), name, async (dir) => {
    const build = join(dir, 'build');
    const env = {
      ...process.env,
      GOMODCACHE: join(build, 'mod'),
      GOCACHE: join(build, 'cache'),
      GOBIN: join(dir, 'bin'),
      GOFLAGS: '-mod=mod',
      CGO_ENABLED: '0',
    };
    const download = JSON.parse(
      await runLogged(
        'go',
        ['mod', 'download', '-json', `${PROMETHEUS.module}@${PROMETHEUS.version}`],
        {
          cwd: dir,
          logFile,
          env,
        },
      ),
    ) as { Sum?: string; Error?: string };
    if (download.Sum !== PROMETHEUS.sum) {
      throw new Error(
        `${PROMETHEUS.module}@${PROMETHEUS.version}: expected ${PROMETHEUS.sum}, got ${download.Sum ?? download.Error ?? 'nothing'}`,
      );
    }
    await runLogged(
      'go',
      [
        ...['install', '-trimpath', '-ldflags=-s -w'],
        `${PROMETHEUS.module}/cmd/promtool@${PROMETHEUS.version}`,
      ],
      { cwd: dir, logFile, env },
    );
    await runLogged('go', ['clean', '-modcache'], { cwd: dir, logFile, env });
    await rm(build, { recursive: true, force: true });
  });
  return join(home, 'bin', 'promtool');
}
