import { escapeXml } from '#tooling/charts/chart-frame.ts';
import { lineChart, type Mark, type Series } from '#tooling/charts/line-chart.ts';
import { htmlPage, htmlTable, paragraph, type RenderedReport } from '#tooling/charts/page.ts';
import { percentile } from '#tooling/statistics/percentile.ts';
import { changeFigures, durationOf, slowAnswerMs, type Change } from './figures.ts';
import type { Target } from '../scenarios/scenario.ts';
import type { Answer } from '../observe/traffic.ts';
import { FINDING_KINDS, isOutage, type Finding } from './verdict.ts';

/** A chaos run as written beside its answers (`run.json`), for its HTML page. */
export interface ChaosRecord {
  scenario: string;
  startedAt: string;
  passed: boolean;
  loadSeconds: number;
  /**
   * Each whole second of the load, by when answers ended: answered 2xx, answered otherwise (the
   * traffic's own conflicts answer 400), failed (503, 504 or no answer), and the p99 of them all.
   */
  perSecond: { second: number; answered: number; non2xx: number; failed: number; p99: number }[];
  /** Each change, in s from the load's start: when it began, and when clients were served promptly again. */
  changes: { name: string; at: number; recovered: number; failed: number }[];
  targets: Target[];
  /** What checking every answer against the store found, by kind. */
  checked: Record<string, number>;
  /** An open-loop run's seconds (overload), by when requests were sent. */
  flow?: FlowSecond[];
}

/** One second of an open-loop load: requests sent in it, and of them answered 2xx or refused 503. */
export interface FlowSecond {
  second: number;
  offered: number;
  goodput: number;
  shed: number;
}

export function chaosRecord(run: {
  scenario: string;
  startedAt: string;
  passed: boolean;
  load: readonly Answer[];
  changes: readonly Change[];
  targets: readonly Target[];
  findings: readonly Finding[];
  loadStartedAt: number;
  loadSeconds: number;
  flow?: FlowSecond[];
}): ChaosRecord {
  const { load, loadStartedAt } = run;
  // Whole seconds only: the last, cut short by the load's end, would read as a fall.
  const bySecond = Array.from({ length: Math.floor(run.loadSeconds) }, () => [] as Answer[]);
  for (const answer of load)
    bySecond[Math.floor((answer.endedAt - loadStartedAt) / 1_000)]?.push(answer);
  const ok = ({ status }: Answer) => status >= 200 && status < 300;
  const at = (ms: number) => Math.round((ms - loadStartedAt) / 100) / 10;
  return {
    scenario: run.scenario,
    startedAt: run.startedAt,
    passed: run.passed,
    loadSeconds: Math.round(run.loadSeconds * 10) / 10,
    perSecond: bySecond.map((answers, second) => ({
      second,
      answered: answers.filter(ok).length,
      non2xx: answers.filter((answer) => !ok(answer)).length,
      failed: answers.filter(isOutage).length,
      // No answer ended in that second: no p99 to draw (null in the JSON), not 0 ms.
      p99:
        answers.length === 0
          ? Number.NaN
          : percentile(
              answers.map(durationOf).sort((a, b) => a - b),
              99,
            ),
    })),
    changes: changeFigures(load, run.changes, slowAnswerMs(load, run.changes)).map(
      ({ change, recoveredAfterMs, failed }) => ({
        name: change.name,
        at: at(change.at),
        recovered: at(change.at + recoveredAfterMs),
        failed,
      }),
    ),
    targets: [...run.targets],
    checked: Object.fromEntries(
      FINDING_KINDS.map((kind) => [kind, run.findings.filter((each) => each.kind === kind).length]),
    ),
    ...(run.flow === undefined ? {} : { flow: run.flow }),
  };
}

/** A chaos run as one page: what clients saw each second with every change marked, and the verdict. */
export function chaosHtml(record: ChaosRecord): RenderedReport {
  const marks: Mark[] = record.changes.map(({ name, at, recovered }) =>
    recovered > at ? { x: at, to: recovered, label: name } : { x: at, label: name },
  );
  const chart = (id: string, title: string, yLabel: string, series: Series[]) =>
    lineChart({ id, title, xLabel: 's from the start of the load', yLabel, series, marks });
  const points = (pick: (second: ChaosRecord['perSecond'][number]) => number) =>
    record.perSecond.map((second) => ({ x: second.second, y: pick(second) }));
  const answered = chart(
    'answered',
    'Creates answered 2xx per second; each change shaded until clients were answered promptly again',
    'answered per second',
    [{ name: 'answered 2xx', points: points(({ answered: each }) => each) }],
  );
  const { flow } = record;
  const flowChart =
    flow === undefined
      ? []
      : [
          chart(
            'flow',
            'Requests offered per second, and of them answered 2xx (goodput) and refused 503 (shed), by when they were sent',
            'per second',
            (['offered', 'goodput', 'shed'] as const).map((name) => ({
              name,
              points: flow.map((second) => ({ x: second.second, y: second[name] })),
            })),
          ),
        ];
  const verdict = record.passed ? 'PASS' : 'FAIL';
  return {
    html: htmlPage(`Chaos ${record.scenario} ${record.startedAt}: ${verdict}`, [
      paragraph(
        `${String(record.perSecond.reduce((sum, { answered: each, non2xx }) => sum + each + non2xx, 0))} creates ended in the ${String(record.perSecond.length)} whole seconds of ${String(record.loadSeconds)} s of load.`,
      ),
      ...flowChart,
      answered,
      chart('p99', 'p99 of the answers that ended in each second (2xx or not)', 'ms', [
        { name: 'p99', points: points(({ p99 }) => p99) },
      ]),
      chart(
        'failed',
        'Answers other than 2xx per second, and of them the failures: 503, 504 or no answer',
        'per second',
        [
          { name: 'non-2xx or none', points: points(({ non2xx }) => non2xx) },
          { name: 'failed (503, 504, none)', points: points(({ failed }) => failed) },
        ],
      ),
      '<h2>Changes</h2>',
      htmlTable(
        'changes',
        ['change', 'at s', 'answered promptly again at s', 'failed'],
        record.changes.map(({ name, at, recovered, failed }) => [
          name,
          String(at),
          String(recovered),
          String(failed),
        ]),
      ),
      '<h2>Verdict</h2>',
      htmlTable(
        'targets',
        ['target', 'measured', 'verdict'],
        record.targets.map(({ target, measured, met }) => [
          target,
          measured,
          met ? 'met' : 'MISSED',
        ]),
      ),
      htmlTable(
        'checked',
        ['checked against the store', 'count'],
        Object.entries(record.checked).map(([kind, count]) => [kind, String(count)]),
      ),
      `<p class="${record.passed ? '' : 'missed'}">${escapeXml(`chaos ${record.scenario}: ${verdict}`)}</p>`,
    ]),
    mainChart: answered,
  };
}
