import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { projectRoot } from '../../deploy/local/paths.ts';
import type { PrometheusRule, RuleGroup } from '../support/deploy-manifests.ts';
import { promtool } from '../support/promtool.ts';
import { runTool } from '../support/run-tool.ts';

const RULES = 'deploy/prometheus/plant-store.rules.yml';
const RULE_TESTS = 'deploy/prometheus/plant-store.rules.test.yml';
const OPERATOR_RULES = 'deploy/k8s/prometheus-rules.yaml';

interface AlertRule {
  alert: string;
  expr: string;
  annotations: Record<string, string>;
}
interface RuleTests {
  rule_files: string[];
  tests: { name: string; alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}

const readYaml = async <T>(file: string): Promise<T> =>
  parse(await readFile(join(projectRoot, file), 'utf8')) as T;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

describe('The alerting and recording rules (promtool)', () => {
  let binary = '';
  let scratch = '';
  let groups: RuleGroup[] = [];
  let alerts: AlertRule[] = [];

  beforeAll(async () => {
    binary = await promtool();
    scratch = await mkdtemp(join(tmpdir(), 'plant-store-rules-'));
    groups = (await readYaml<{ groups: RuleGroup[] }>(RULES)).groups;
    alerts = groups.flatMap(({ rules }) =>
      rules.filter((rule): rule is AlertRule => 'alert' in rule),
    );
  }, 900_000);
  afterAll(async () => {
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  });

  it('When promtool checks the rules file, then every rule is valid', () => {
    const run = runTool(binary, ['check', 'rules', RULES]);

    expect(run.output).toContain(
      `SUCCESS: ${String(groups.flatMap(({ rules }) => rules).length)} rules found`,
    );
    expect(run.status).toBe(0);
  });

  it('When promtool runs the rule tests, then each alert fires on its series and stays silent at its boundaries', () => {
    const run = runTool(binary, ['test', 'rules', RULE_TESTS]);

    expect(run.output).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('When the rule tests are read, then every alert has a case where it fires and one where it stays silent', async () => {
    const cases = (await readYaml<RuleTests>(RULE_TESTS)).tests.flatMap(
      ({ alert_rule_test = [] }) => alert_rule_test,
    );

    for (const { alert } of alerts) {
      const own = cases.filter(({ alertname }) => alertname === alert);
      expect(
        own.some(({ exp_alerts }) => exp_alerts.length > 0),
        `${alert} fires`,
      ).toBe(true);
      expect(
        own.some(({ exp_alerts }) => exp_alerts.length === 0),
        `${alert} is silent`,
      ).toBe(true);
    }
  });

  it('When a copy of any alert is changed so that it can never fire, then the rule tests fail on that alert', async () => {
    expect(alerts.length).toBeGreaterThanOrEqual(12);
    const tests = await readYaml<RuleTests>(RULE_TESTS);

    for (const { alert } of alerts) {
      const neverFiring = groups.map((group) => ({
        ...group,
        rules: group.rules.map((rule) =>
          'alert' in rule && rule.alert === alert
            ? { ...rule, expr: `(${(rule as AlertRule).expr}) and on () vector(0) > 1` }
            : rule,
        ),
      }));
      await writeFile(join(scratch, 'mutated.rules.yml'), stringify({ groups: neverFiring }));
      await writeFile(
        join(scratch, 'mutated.test.yml'),
        stringify({ ...tests, rule_files: ['mutated.rules.yml'] }),
      );

      const run = runTool(binary, ['test', 'rules', join(scratch, 'mutated.test.yml')]);

      expect(run.status, alert).toBe(1);
      expect(run.output, alert).toContain(`alertname: ${alert}`);
    }
  });

  it('When an alert names its runbook, then docs/operations.md has that section', async () => {
    const operations = await readFile(join(projectRoot, 'docs', 'operations.md'), 'utf8');
    const anchors = new Set(
      [...operations.matchAll(/^#{2,4} (.+)$/gm)].map(([, heading = '']) => anchorOf(heading)),
    );

    for (const { alert, annotations } of alerts) {
      const [file, anchor = ''] = (annotations.runbook_url ?? '').split('#');
      expect(file, alert).toBe('docs/operations.md');
      expect(anchors.has(anchor), `${alert}: #${anchor}`).toBe(true);
      expect(anchor, alert).toContain(alert.toLowerCase());
    }
  });

  it('When the PrometheusRule of deploy/k8s is read, then it carries the same groups as the rules file', async () => {
    const resource = await readYaml<PrometheusRule>(OPERATOR_RULES);

    expect(resource.kind).toBe('PrometheusRule');
    expect(resource.spec.groups).toEqual(groups);
  });
});
