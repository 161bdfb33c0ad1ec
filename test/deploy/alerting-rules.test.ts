import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { projectRoot } from '#local/provision/paths.ts';
import type { PrometheusRule, RuleGroup } from '../support/checks/deploy-manifests.ts';
import { promtool, PROMTOOL_BUILD_LIMIT_MS } from '#local/provision/promtool.ts';
import { runTool } from '../support/processes/run-tool.ts';

const RULES = 'deploy/prometheus/plant-store.rules.yml';
const RULE_TESTS = 'deploy/prometheus/plant-store.rules.test.yml';
const OPERATOR_RULES = 'deploy/k8s/prometheus-rules.yaml';
/**
 * Rule tests written by disk-full chaos runs (`alerts.test.yml` in the run's folder): the
 * services' series as the run scraped them, and the alert that must be firing before the fault
 * ended.
 */
const CHAOS_RULE_TESTS = [
  'test/deploy/fixtures/store-disk-full.alerts.test.yml',
  'test/deploy/fixtures/broker-disk-full.alerts.test.yml',
];

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

const groups = (await readYaml<{ groups: RuleGroup[] }>(RULES)).groups;
const alertsOf = (ruleGroups: RuleGroup[]) =>
  ruleGroups.flatMap(({ rules }) => rules.filter((rule): rule is AlertRule => 'alert' in rule));
const alerts = alertsOf(groups);
const ruleTests = await readYaml<RuleTests>(RULE_TESTS);

describe('The alerting and recording rules (promtool)', () => {
  let binary = '';
  let scratch = '';

  beforeAll(async () => {
    binary = await promtool();
    scratch = await mkdtemp(join(tmpdir(), 'plant-store-rules-'));
  }, PROMTOOL_BUILD_LIMIT_MS);
  afterAll(async () => {
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  });

  /**
   * A copy of the rule tests with the cases of `alert` only, run against `rules`. promtool's time
   * goes into evaluating cases: every case in one test, and every case again against a copy of
   * the rules per alert (61 s of a 60 s timeout on a slow day), became a test per alert.
   */
  async function ruleTestsOf(name: string, alert: string, rules: string): Promise<string> {
    const file = join(scratch, `${name}.test.yml`);
    await writeFile(
      file,
      stringify({
        ...ruleTests,
        rule_files: [rules],
        tests: ruleTests.tests.filter(({ alert_rule_test = [] }) =>
          alert_rule_test.some(({ alertname }) => alertname === alert),
        ),
      }),
    );
    return file;
  }

  it('When promtool checks the rules file, then every rule is valid', () => {
    const run = runTool(binary, ['check', 'rules', RULES]);

    expect(run.output).toContain(
      `SUCCESS: ${String(groups.flatMap(({ rules }) => rules).length)} rules found`,
    );
    expect(run.status).toBe(0);
  });

  it('When the rule tests are read, then every alert has a case where it fires and one where it stays silent, and every case tests an alert', () => {
    const cases = ruleTests.tests.flatMap(({ alert_rule_test = [] }) => alert_rule_test);
    const names = new Set(alerts.map(({ alert }) => alert));

    expect(alerts.length).toBeGreaterThanOrEqual(12);
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
    // The tests below run each alert's cases: together they run every case.
    expect(
      ruleTests.tests
        .filter(({ alert_rule_test = [] }) =>
          alert_rule_test.every(({ alertname }) => !names.has(alertname)),
        )
        .map(({ name }) => name),
    ).toEqual([]);
  });

  it.for(alerts.map(({ alert }) => alert))(
    'When promtool runs the rule tests of %s, then it fires on its series and stays silent at its boundaries',
    async (alert) => {
      const tests = await ruleTestsOf(`fires-${alert}`, alert, join(projectRoot, RULES));

      const run = runTool(binary, ['test', 'rules', tests]);

      expect(run.output).toContain('SUCCESS');
      expect(run.status).toBe(0);
    },
  );

  it.for(alerts.map(({ alert }) => alert))(
    'When a copy of %s is changed so that it can never fire, then its rule tests fail on it',
    async (alert) => {
      const neverFiring = groups.map((group) => ({
        ...group,
        rules: group.rules.map((rule) =>
          'alert' in rule && rule.alert === alert
            ? { ...rule, expr: `(${(rule as AlertRule).expr}) and on () vector(0) > 1` }
            : rule,
        ),
      }));
      const rules = join(scratch, `never-${alert}.rules.yml`);
      await writeFile(rules, stringify({ groups: neverFiring }));
      const tests = await ruleTestsOf(`never-${alert}`, alert, rules);

      const run = runTool(binary, ['test', 'rules', tests]);

      expect(run.status, alert).toBe(1);
      expect(run.output, alert).toContain(`alertname: ${alert}`);
    },
  );

  it.for(CHAOS_RULE_TESTS)(
    'When promtool runs %s, then its alert fires on the series a chaos run scraped',
    async (file) => {
      const tests = join(scratch, basename(file));
      const written = await readYaml<RuleTests>(file);
      await writeFile(tests, stringify({ ...written, rule_files: [join(projectRoot, RULES)] }));

      const run = runTool(binary, ['test', 'rules', tests]);

      expect(written.tests.flatMap(({ alert_rule_test = [] }) => alert_rule_test)).not.toEqual([]);
      expect(run.output).toContain('SUCCESS');
      expect(run.status).toBe(0);
    },
  );

  it.for([RULES, OPERATOR_RULES])(
    'When an alert of %s names its runbook, then that page is under docs/runbooks/ and its first heading names the alert',
    async (file) => {
      const fileGroups =
        file === RULES ? groups : (await readYaml<PrometheusRule>(file)).spec.groups;

      for (const { alert, annotations } of alertsOf(fileGroups)) {
        const url = annotations.runbook_url ?? '';
        expect(url, alert).toMatch(/^docs\/runbooks\/[a-z]+\.md$/);
        const page = await readFile(join(projectRoot, url), 'utf8').catch(() => undefined);
        expect(page, `${alert}: ${url}`).toBeDefined();
        const [, heading = ''] = /^#{1,6} (.+)$/m.exec(page ?? '') ?? [];
        expect(heading.match(/PlantStore\w+/g) ?? [], `${alert}: ${url}`).toContain(alert);
      }
    },
  );

  it('When the PrometheusRule of deploy/k8s is read, then it carries the same groups as the rules file', async () => {
    const resource = await readYaml<PrometheusRule>(OPERATOR_RULES);

    expect(resource.kind).toBe('PrometheusRule');
    expect(resource.spec.groups).toEqual(groups);
  });
});
