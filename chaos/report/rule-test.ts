import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { projectRoot } from '#local/provision/paths.ts';
import { SCRAPE_EVERY_MS, type Scrape } from '../observe/scrape.ts';

/** The rules an operator's Prometheus evaluates (docs/runbooks/README.md). */
export const RULES_FILE = join(projectRoot, 'deploy/prometheus/plant-store.rules.yml');

interface Rule {
  alert?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** An alert that must be firing at `at` on the run's series. */
export interface ExpectedAlert {
  alert: string;
  at: number;
}

const rules = (): Rule[] =>
  (parse(readFileSync(RULES_FILE, 'utf8')) as { groups: { rules: Rule[] }[] }).groups.flatMap(
    (group) => group.rules,
  );

/** Whether a rule reads the metric `name`: only those series are worth scraping. */
export function readByTheRules(): (name: string) => boolean {
  const names = new Set(rules().flatMap(({ expr }) => expr.match(/\b[a-z_]+_[a-z_]+\b/g) ?? []));
  return (name) => names.has(name);
}

/**
 * A `promtool test rules` file of the run's scrapes (one value every SCRAPE_EVERY_MS from the
 * first, `_` where a target did not answer) that expects each alert firing at its time. The
 * alerts tested so have no labels but their rule's, and annotations without templates: what
 * fires is known without evaluating the rule.
 */
export function ruleTestOf(
  scrapes: readonly Scrape[],
  expected: readonly ExpectedAlert[],
  rulesFile: string,
): string {
  const startedAt = scrapes[0]?.at ?? 0;
  const names = new Set(scrapes.flatMap(({ series }) => [...series.keys()]));
  const byName = new Map(
    rules().flatMap((rule) => (rule.alert === undefined ? [] : [[rule.alert, rule]])),
  );
  const interval = `${String(SCRAPE_EVERY_MS / 1_000)}s`;
  return stringify({
    rule_files: [rulesFile],
    evaluation_interval: interval,
    tests: [
      {
        name: 'the series of a chaos run',
        interval,
        input_series: [...names].toSorted().map((series) => ({
          series,
          values: expanding(scrapes.map((scrape) => scrape.series.get(series))),
        })),
        alert_rule_test: expected.map(({ alert, at }) => {
          const rule = byName.get(alert);
          if (rule === undefined) throw new Error(`${RULES_FILE} has no alert ${alert}`);
          const step = Math.floor((at - startedAt) / SCRAPE_EVERY_MS);
          return {
            eval_time: `${String((step * SCRAPE_EVERY_MS) / 1_000)}s`,
            alertname: alert,
            exp_alerts: [
              { exp_labels: rule.labels ?? {}, exp_annotations: rule.annotations ?? {} },
            ],
          };
        }),
      },
    ],
  });
}

/**
 * Values in promtool's expanding notation: a run of three or more values apart by equal steps as
 * `a+bxn` (`a-bxn`), missing values as `_` (`_xn`).
 */
export function expanding(values: readonly (number | undefined)[]): string {
  const terms: string[] = [];
  for (let index = 0; index < values.length;) {
    const first = values[index];
    if (first === undefined) {
      let gaps = 0;
      while (index + gaps + 1 < values.length && values[index + gaps + 1] === undefined) gaps++;
      terms.push(gaps === 0 ? '_' : `_x${String(gaps + 1)}`);
      index += gaps + 1;
      continue;
    }
    const next = values[index + 1];
    const step = next === undefined ? 0 : next - first;
    let repeats = 0;
    while (
      index + repeats + 1 < values.length &&
      values[index + repeats + 1] !== undefined &&
      (values[index + repeats + 1] ?? 0) - (values[index + repeats] ?? 0) === step
    )
      repeats++;
    if (repeats < 2) {
      terms.push(String(first));
      index++;
      continue;
    }
    terms.push(
      `${String(first)}${step < 0 ? '-' : '+'}${String(Math.abs(step))}x${String(repeats)}`,
    );
    index += repeats + 1;
  }
  return terms.join(' ');
}
