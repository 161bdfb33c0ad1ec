import { goTool } from './go-tool.ts';

/**
 * How long a hook that may build promtool waits: a limit on hangs. The build takes 2–4 minutes on
 * idle cores and took 30 minutes on two loaded ones.
 */
export const PROMTOOL_BUILD_LIMIT_MS = 3_600_000;

/**
 * promtool, built once per machine from the pinned Prometheus module (2–4 minutes; 1.9 GB of
 * module and build cache, removed after the build) and kept in the machine's cache.
 */
export const promtool = () =>
  goTool({
    module: 'github.com/prometheus/prometheus',
    version: 'v0.316.0',
    sum: 'h1:f1GRFerhTMKQma+awCoC9T820ecWeGSdF+xAlMHzZzM=',
    command: 'cmd/promtool',
    neededFor:
      'testing the alerting rules (test/deploy/alerting-rules.test.ts, the disk-full chaos scenarios)',
    minimumGo: '1.25',
  });
