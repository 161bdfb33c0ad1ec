import { spawnSync } from 'node:child_process';
import { promtool } from '#local/provision/promtool.ts';
import type { Target } from '../scenarios/scenario.ts';
import type { ExpectedAlert } from './rule-test.ts';

const PROMTOOL_TIMEOUT_MS = 120_000;

/**
 * One target per expected alert: `promtool test rules` on the rule test written from the run's
 * scrapes (`file`). `since` is when the fault began, to say how long into it each was expected.
 */
export async function alertTargets(
  file: string,
  expected: readonly ExpectedAlert[],
  since: number,
): Promise<Target[]> {
  const run = spawnSync(await promtool(), ['test', 'rules', file], {
    encoding: 'utf8',
    timeout: PROMTOOL_TIMEOUT_MS,
  });
  const output = `${run.stdout}${run.stderr}`;
  return expected.map(({ alert, at }) => {
    const into = `${((at - since) / 1_000).toFixed(0)} s into the fault`;
    const met = run.status === 0;
    return {
      target: `alert ${alert} fires on this run's scraped series (promtool test rules)`,
      met,
      measured: met
        ? `firing ${into}`
        : `not firing ${into}: ${output.trim().split('\n').slice(0, 6).join(' ')} (${file})`,
    };
  });
}
