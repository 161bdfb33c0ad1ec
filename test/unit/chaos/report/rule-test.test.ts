import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { expanding, readByTheRules, ruleTestOf } from '#chaos/report/rule-test.ts';

describe("The promtool rule test written from a chaos run's scrapes", () => {
  it('When values repeat, climb by equal steps or are missing, then they are written in the expanding notation', () => {
    expect(expanding([0, 0, 0, 5, 10, 15, undefined, undefined, 7])).toBe('0+0x2 5+5x2 _x2 7');
    expect(expanding([3, 1, -1, undefined, 2])).toBe('3-2x2 _ 2');
    expect(expanding([0.5, 0.75, 2, 2])).toBe('0.5 0.75 2 2');
    expect(expanding([])).toBe('');
  });

  it('When the rules are read, then the series they select are kept and others are not', () => {
    const kept = readByTheRules();

    expect(kept('plant_store_writer_store_refusing_seconds')).toBe(true);
    expect(kept('plant_store_gateway_ready')).toBe(true);
    expect(kept('nodejs_heap_size_total_bytes')).toBe(false);
  });

  it('When an alert is expected at a time, then the test evaluates it at the scrape before, expecting its labels and annotations', () => {
    const series = 'plant_store_writer_store_refusing_seconds{instance="w1",service="writer"}';
    const scrapes = [0, 5_000, 10_000].map((at, index) => ({
      at: 1_000_000 + at,
      series: new Map([[series, index * 5]]),
    }));

    const written = parse(
      ruleTestOf(scrapes, [{ alert: 'PlantStoreStoreRefusesWrites', at: 1_012_000 }], 'rules.yml'),
    ) as {
      rule_files: string[];
      evaluation_interval: string;
      tests: {
        interval: string;
        input_series: unknown[];
        alert_rule_test: { eval_time: string; alertname: string; exp_alerts: unknown[] }[];
      }[];
    };

    expect(written.rule_files).toEqual(['rules.yml']);
    expect(written.evaluation_interval).toBe('5s');
    const [test] = written.tests;
    expect(test?.input_series).toEqual([{ series, values: '0+5x2' }]);
    expect(test?.alert_rule_test).toEqual([
      {
        eval_time: '10s',
        alertname: 'PlantStoreStoreRefusesWrites',
        exp_alerts: [
          {
            exp_labels: { severity: 'page' },
            exp_annotations: expect.objectContaining({
              runbook_url: 'docs/runbooks/plantstorestorerefuseswrites.md',
            }) as unknown,
          },
        ],
      },
    ]);
  });
});
