import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot, projectRoot } from '#local/provision/paths.ts';
import { provisionOnce } from '#local/provision/provision-cache.ts';
import { runLogged } from '#local/process/run-logged.ts';
import { requireGo } from '#local/provision/go-tool.ts';

const SOURCE = join(projectRoot, 'test', 'support', 'checks', 'grafana-dashboard-check');

/**
 * The dashboard checker of `test/support/checks/grafana-dashboard-check` (the Grafana Foundation SDK's
 * strict decoding), built once per machine and again when its source or pins change.
 */
export async function grafanaDashboardCheck(): Promise<string> {
  requireGo(
    'building the Grafana dashboard checker (once, then cached) for test/deploy/dashboard.test.ts',
    '1.22',
  );
  const sources = await Promise.all(
    ['go.mod', 'go.sum', 'main.go'].map((file) => readFile(join(SOURCE, file), 'utf8')),
  );
  const digest = createHash('sha256').update(sources.join('\0')).digest('hex').slice(0, 16);
  const name = `grafana-dashboard-check-${digest}`;
  const logFile = join(cacheRoot(), `${name}.install.log`);
  const home = await provisionOnce(cacheRoot(), name, async (dir) => {
    await runLogged('go', ['build', '-trimpath', '-o', join(dir, 'grafana-dashboard-check'), '.'], {
      cwd: SOURCE,
      logFile,
    });
  });
  return join(home, 'grafana-dashboard-check');
}
