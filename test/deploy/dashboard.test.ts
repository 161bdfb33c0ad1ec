import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import { projectRoot } from '#local/provision/paths.ts';
import { attachGateway } from '../support/servers/gateway.ts';
import { grafanaDashboardCheck } from '../support/checks/grafana-dashboard-check.ts';
import { metric, parseMetrics, type Sample } from '../support/checks/metrics.ts';
import { aPlant } from '../support/clients/plants.ts';
import { promtool, PROMTOOL_BUILD_LIMIT_MS } from '#local/provision/promtool.ts';
import { runTool } from '../support/processes/run-tool.ts';
import { replyHeaders, startTestWriter } from '../support/servers/writer.ts';

interface Target {
  refId: string;
  expr: string;
  datasource: { type: string; uid: string };
}
interface Panel {
  id: number;
  options?: Record<string, unknown>;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { type: string; name: string; query: string }[] };
}

const DASHBOARD = join(projectRoot, 'deploy', 'grafana', 'plant-store.json');
const RULES = join(projectRoot, 'deploy', 'prometheus', 'plant-store.rules.yml');
/** Grafana's interval for rate(), at least four scrapes; 5 m here, as in the recording rules. */
const RATE_INTERVAL = '5m';

/** Every target of every panel, with Grafana's variables replaced as Grafana would. */
const queriesOf = (dashboard: Dashboard) =>
  dashboard.panels.flatMap(({ title, targets = [] }) =>
    targets.map(({ refId, expr }) => ({
      name: `${title} ${refId}`,
      expr: expr.replaceAll('$__rate_interval', RATE_INTERVAL),
    })),
  );

const seriesName = ({ name, labels }: Sample, instance: string) => {
  const all = { ...labels, instance, job: 'plant-store' };
  return `${name}{${Object.entries(all)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(', ')}}`;
};

/**
 * The two scrapes of each series as promtool's input: the first for 5 minutes, then the second,
 * a minute apart as Prometheus would scrape them.
 */
function inputSeries(first: Sample[], second: Sample[], instance: string) {
  const later = new Map(second.map((sample) => [seriesName(sample, instance), sample.value]));
  return first.flatMap((sample) => {
    const series = seriesName(sample, instance);
    const next = later.get(series);
    if (next === undefined || !Number.isFinite(sample.value) || !Number.isFinite(next)) return [];
    return [{ series, values: `${String(sample.value)}x4 ${String(next)}x5` }];
  });
}

/**
 * promtool's verdict on each query: an alert that fires when it returns data, evaluated with the
 * project's recording rules over `series`.
 */
async function evaluate(
  binary: string,
  dir: string,
  queries: { name: string; expr: string }[],
  series: { series: string; values: string }[],
) {
  const alertOf = (index: number) => `Panel${String(index)}`;
  await writeFile(
    join(dir, 'panels.rules.yml'),
    stringify({
      groups: [
        {
          name: 'panels',
          rules: queries.map(({ expr }, index) => ({
            alert: alertOf(index),
            expr: `count(${expr}) > 0`,
          })),
        },
      ],
    }),
  );
  await writeFile(
    join(dir, 'panels.test.yml'),
    stringify({
      rule_files: ['panels.rules.yml', RULES],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: series,
          alert_rule_test: queries.map((_, index) => ({
            eval_time: '6m',
            alertname: alertOf(index),
            exp_alerts: [{ exp_labels: {} }],
          })),
        },
      ],
    }),
  );
  const run = runTool(binary, ['test', 'rules', join(dir, 'panels.test.yml')]);
  const failed = queries.filter((_, index) => run.output.includes(`alertname: ${alertOf(index)},`));
  return { ...run, failed: failed.map(({ name }) => name) };
}

describe('The Grafana dashboard (deploy/grafana/plant-store.json)', () => {
  let dashboard: Dashboard;
  let binary = '';
  let checker = '';
  let scratch = '';

  beforeAll(async () => {
    dashboard = JSON.parse(await readFile(DASHBOARD, 'utf8')) as Dashboard;
    [binary, checker] = await Promise.all([promtool(), grafanaDashboardCheck()]);
    scratch = await mkdtemp(join(tmpdir(), 'plant-store-dashboard-'));
  }, PROMTOOL_BUILD_LIMIT_MS);
  afterAll(async () => {
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  });

  it('When it is decoded strictly into the Grafana Foundation SDK’s dashboard, panel and Prometheus query types, then every field is known and of its type', () => {
    const run = runTool(checker, [DASHBOARD]);

    expect(run.output).toBe(`${DASHBOARD}: valid\n`);
    expect(run.status).toBe(0);
  });

  it('When a panel carries an option its plugin does not have, or a field of the wrong type, then the strict decoding refuses the dashboard', async () => {
    const [first, second] = dashboard.panels.filter(({ type }) => type === 'timeseries');
    const broken = {
      ...dashboard,
      panels: dashboard.panels.map((panel) => {
        if (panel === first) return { ...panel, options: { ...panel.options, lineWidht: 2 } };
        if (panel === second) return { ...panel, gridPos: { ...panel.gridPos, w: 'wide' } };
        return panel;
      }),
    };
    const file = join(scratch, 'broken.json');
    await writeFile(file, JSON.stringify(broken));

    const run = runTool(checker, [file]);

    expect(run.output).toContain("unexpected field 'lineWidht'");
    expect(run.output).toMatch(/gridPos\.w: json: cannot unmarshal string/);
    expect(run.status).toBe(1);
  });

  it('When its panels are read, then each has a unique id, fits the 24-column grid without overlapping another, and queries the Prometheus chosen in its datasource variable', () => {
    const ids = dashboard.panels.map(({ id }) => id);
    const cells = new Set<string>();

    expect(new Set(ids).size).toBe(ids.length);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ type: 'datasource', name: 'datasource', query: 'prometheus' }),
    );
    for (const { title, type, gridPos, datasource, targets } of dashboard.panels) {
      expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
      for (let x = gridPos.x; x < gridPos.x + gridPos.w; x++) {
        for (let y = gridPos.y; y < gridPos.y + gridPos.h; y++) {
          expect(
            cells.has(`${String(x)},${String(y)}`),
            `${title} overlaps at ${String(x)},${String(y)}`,
          ).toBe(false);
          cells.add(`${String(x)},${String(y)}`);
        }
      }
      if (type === 'row') continue;
      expect(datasource, title).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(targets?.length, title).toBeGreaterThan(0);
      for (const target of targets ?? []) expect(target.datasource, title).toEqual(datasource);
    }
  });

  it('When each panel query is evaluated by promtool over the metrics a running gateway and writer export, then every one parses and returns data', async () => {
    const harness = await startTestWriter();
    const gateway = await attachGateway(harness);
    const traffic = async () => {
      const plant = aPlant();
      for (const body of [
        plant.body,
        aPlant().body,
        plant.with({ name: 'Other' }).body,
        '{"id": 1',
      ]) {
        await gateway.post(body);
      }
      await gateway.post(aPlant().body, { authorization: 'Bearer wrong' });
      // A reply that cannot be delivered: its command goes to the DLQ.
      const lost = aPlant();
      await harness.producer.send({
        topic: harness.topics.create,
        messages: [
          {
            key: String(lost.id),
            value: lost.body,
            headers: replyHeaders('not a topic!', replyPartitionHeader(0)),
          },
        ],
      });
      await expect
        .poll(async () =>
          metric(await harness.scrape(), 'plant_store_writer_undeliverable_replies_total'),
        )
        .toBeGreaterThan(0);
    };
    const scrape = async () => ({
      gateway: parseMetrics((await gateway.request({ method: 'GET', url: '/metrics' })).body),
      writer: await harness.scrape(),
    });
    await traffic();
    const first = await scrape();
    await traffic();
    const second = await scrape();
    const series = [
      ...inputSeries(first.gateway, second.gateway, 'gateway-1:3000'),
      ...inputSeries(first.writer, second.writer, 'writer-1:9464'),
    ];

    const run = await evaluate(binary, scratch, queriesOf(dashboard), series);

    expect(run.failed).toEqual([]);
    expect(run.output).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('When a panel queries a metric the services do not export, then the check names that panel', async () => {
    const series = [
      {
        series: 'plant_store_gateway_replies_waiting{service="gateway", instance="g1"}',
        values: '0x10',
      },
    ];
    const queries = [
      { name: 'exported', expr: 'sum(plant_store_gateway_replies_waiting)' },
      { name: 'misspelt', expr: 'sum(plant_store_gateway_replies_waitng)' },
    ];

    const run = await evaluate(binary, scratch, queries, series);

    expect(run.failed).toEqual(['misspelt']);
    expect(run.status).toBe(1);
  });
});
