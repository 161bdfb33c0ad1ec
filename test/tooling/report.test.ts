import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchHtml } from '#bench/report/bench-html.ts';
import { projectRoot } from '#local/provision/paths.ts';
import { createsAnswered, DISTRIBUTION } from '#bench/closed-loop/load.ts';
import type { Report } from '#bench/report/results.ts';
import { chaosHtml, type ChaosRecord } from '#chaos/report/html-report.ts';
import { openPage, startBrowser, type OpenedPage } from '../support/checks/headless-browser.ts';

const recorded = async <T>(name: string) =>
  JSON.parse(await readFile(join(import.meta.dirname, '..', 'fixtures', name), 'utf8')) as T;

/** What the tests read of an element in the page (the project compiles without the DOM library). */
interface PageElement {
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { top: number; width: number };
  textContent: string | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
}

interface DrawnPoint {
  series: string;
  x: number;
  y: number;
  flagged: string | null;
  /** Where the browser laid it out: higher on the screen is a smaller top. */
  top: number;
}

/** The points of a line chart as the browser laid them out. */
function pointsOf(page: Page, chart: string): Promise<DrawnPoint[]> {
  return page.$$eval(
    `figure[data-chart="${chart}"] circle[data-series]`,
    (circles: PageElement[]) =>
      circles.map((circle) => ({
        series: circle.getAttribute('data-series') ?? '',
        x: Number(circle.getAttribute('data-x')),
        y: Number(circle.getAttribute('data-y')),
        flagged: circle.getAttribute('data-flagged'),
        top: circle.getBoundingClientRect().top,
      })),
  );
}

/** Whether a larger figure is always drawn higher: the drawing follows the figures, not only the labels. */
function drawnByValue(points: readonly DrawnPoint[]): boolean {
  return points.every((a) => points.every((b) => !(a.y > b.y) || a.top < b.top + 0.5));
}

async function render(html: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'report-')), 'report.html');
  await writeFile(file, html);
  return pathToFileURL(file).href;
}

let browser: Browser;
let started: Browser | undefined;
beforeAll(async () => {
  browser = started = await startBrowser();
});
// When it did not start, beforeAll's error is the one to read.
afterAll(async () => {
  await started?.close();
});

describe('the HTML report of a recorded bench run, in headless Chromium', () => {
  let report: Report;
  let opened: OpenedPage;
  beforeAll(async () => {
    report = await recorded<Report>('bench-run.json');
    opened = await openPage(browser, await render(benchHtml(report).html));
  });
  const result = (variant: string) => {
    const found = report.results.find((each) => each.variant === variant);
    if (found === undefined) throw new Error(`no ${variant} run in the recording`);
    return found;
  };

  it('When it opens, then nothing is logged as an error and nothing is fetched', async () => {
    expect(opened.errors).toEqual([]);
    const resources = await opened.page.evaluate(
      () => performance.getEntriesByType('resource').length,
    );
    expect(resources).toBe(0);
  });

  it('When the throughput chart is read, then each second of warm-up and load holds the recorded answers, drawn to scale', async () => {
    const points = await pointsOf(opened.page, 'throughput');
    for (const variant of ['direct', 'e2e']) {
      const run = result(variant);
      const seconds = [...(run.warmUp?.perSecond ?? []), ...(run.load.perSecond ?? [])];
      const drawn = points.filter(({ series }) => series === variant);
      expect(drawn.map(({ y }) => y)).toEqual(seconds.map(({ answered }) => answered));
      expect(drawn[0]?.x).toBe(1 - (run.warmUp?.perSecond?.length ?? 0));
      expect(drawnByValue(drawn)).toBe(true);
    }
    expect(seconds(points)).toBeGreaterThan(10);
  });

  it('When the percentile curve is read, then it holds each variant’s recorded distribution', async () => {
    const points = await pointsOf(opened.page, 'percentiles');
    const drawn = points.filter(({ series }) => series === 'e2e');
    expect(drawn.map(({ x }) => x)).toEqual([...DISTRIBUTION]);
    expect(drawn.map(({ y }) => y)).toEqual(result('e2e').load.distribution);
    expect(drawnByValue(drawn)).toBe(true);
  });

  it('When latency against offered rate is read, then each open-loop step is there and the step behind schedule is flagged', async () => {
    const points = await pointsOf(opened.page, 'latency-vs-rate');
    for (const variant of ['direct', 'e2e']) {
      const steps = result(variant).openLoop?.rates ?? [];
      expect(steps.length).toBeGreaterThan(0);
      const p99 = points.filter(({ series }) => series === `${variant} p99`);
      expect(p99.map(({ x, y }) => [x, y])).toEqual(
        steps.map(({ offered, p99: ms }) => [offered, ms]),
      );
      expect(p99.map(({ flagged }) => flagged !== null)).toEqual(
        steps.map(({ behindSchedule, errors }) => behindSchedule || errors > 0),
      );
    }
    expect(points.some(({ flagged }) => flagged === 'generator behind schedule')).toBe(true);
    expect(drawnByValue(points)).toBe(true);
  });

  it('When CPU per create is read, then each process’s share is the recorded CPU over the creates, widths in proportion', async () => {
    const segments = await opened.page.$$eval(
      'figure[data-chart="cpu-per-create"] rect[data-segment]',
      (rects: PageElement[]) =>
        rects.map((rect) => ({
          row: rect.getAttribute('data-row'),
          name: rect.getAttribute('data-segment'),
          value: Number(rect.getAttribute('data-value')),
          width: rect.getBoundingClientRect().width,
        })),
    );
    const e2e = result('e2e');
    const creates = createsAnswered(e2e.load);
    expect(
      segments.filter(({ row }) => row === 'e2e').map(({ name, value }) => [name, value]),
    ).toEqual(
      e2e.usage.map(({ name, cpuSeconds }) => [name, Math.round((cpuSeconds * 1e6) / creates)]),
    );
    const [widest] = segments.toSorted((a, b) => b.value - a.value);
    for (const { value, width } of segments)
      expect(width).toBeCloseTo(((widest?.width ?? 0) * value) / (widest?.value ?? 1), 0);
  });

  it('When broker requests are read, then they are the recorded requests per 1,000 creates', async () => {
    const segments = await opened.page.$$eval(
      'figure[data-chart="broker-requests"] rect[data-segment]',
      (rects: PageElement[]) =>
        rects.map((rect) => [
          rect.getAttribute('data-segment'),
          Number(rect.getAttribute('data-value')),
        ]),
    );
    expect(Object.fromEntries(segments)).toEqual(result('e2e').brokerRequestsPerThousand);
  });

  it('When the page is read, then it starts with the machine’s calibration', async () => {
    const first = await opened.page.$eval('p', (p: PageElement) => p.textContent);
    expect(first).toContain(`answered ${String(report.calibration.httpRequestsPerSecond)} req/s`);
  });
});

describe('the HTML report of a recorded chaos run, in headless Chromium', () => {
  let record: ChaosRecord;
  let opened: OpenedPage;
  beforeAll(async () => {
    record = await recorded<ChaosRecord>('chaos-run.json');
    opened = await openPage(browser, await render(chaosHtml(record).html));
  });

  it('When it opens, then nothing is logged as an error', () => {
    expect(opened.errors).toEqual([]);
  });

  it('When its charts are read, then each second holds the recorded answers, p99 and failures', async () => {
    const answered = await pointsOf(opened.page, 'answered');
    const p99 = await pointsOf(opened.page, 'p99');
    const failed = await pointsOf(opened.page, 'failed');
    expect(answered.map(({ x, y }) => [x, y])).toEqual(
      record.perSecond.map(({ second, answered: n }) => [second, n]),
    );
    expect(p99.map(({ y }) => y)).toEqual(record.perSecond.map(({ p99: ms }) => ms));
    const drawn = (series: string) => failed.filter((point) => point.series === series);
    expect(drawn('non-2xx or none').map(({ y }) => y)).toEqual(
      record.perSecond.map(({ non2xx }) => non2xx),
    );
    expect(drawn('failed (503, 504, none)').map(({ y }) => y)).toEqual(
      record.perSecond.map(({ failed: n }) => n),
    );
    expect(drawnByValue(answered)).toBe(true);
    expect(drawnByValue(p99)).toBe(true);
    expect(record.perSecond.some(({ failed: n }) => n > 0)).toBe(true);
  });

  it('When its marks are read, then every change is marked on each chart where it happened', async () => {
    const marks = await opened.page.$$eval(
      'figure[data-chart="answered"] [data-mark]',
      (each: PageElement[]) =>
        each.map((mark) => [mark.getAttribute('data-mark'), Number(mark.getAttribute('data-x'))]),
    );
    expect(marks).toEqual(record.changes.map(({ name, at }) => [name, at]));
    expect(marks.length).toBeGreaterThan(0);
  });

  it('When the verdict is read, then every target is there with its verdict', async () => {
    const rows = await opened.page.$$eval(
      'table[data-table="targets"] tbody tr',
      (trs: PageElement[]) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(rows).toEqual(
      record.targets.map(({ target, measured, met }) => [target, measured, met ? 'met' : 'MISSED']),
    );
    const title = await opened.page.title();
    expect(title).toContain(record.passed ? 'PASS' : 'FAIL');
  });
});

describe('the HTML report of a recorded overload run, in headless Chromium', () => {
  let record: ChaosRecord;
  let opened: OpenedPage;
  beforeAll(async () => {
    record = await recorded<ChaosRecord>('overload-run.json');
    opened = await openPage(browser, await render(chaosHtml(record).html));
  });

  it('When its flow chart is read, then each second holds the recorded requests offered, answered 2xx and refused', async () => {
    const flow = await pointsOf(opened.page, 'flow');
    const drawn = (series: string) =>
      flow.filter((point) => point.series === series).map(({ x, y }) => [x, y]);

    expect(opened.errors).toEqual([]);
    for (const series of ['offered', 'goodput', 'shed'] as const)
      expect(drawn(series)).toEqual(record.flow?.map((second) => [second.second, second[series]]));
    expect(record.flow?.some(({ shed }) => shed > 0)).toBe(true);
  });
});

function seconds(points: readonly DrawnPoint[]): number {
  return new Set(points.map(({ x }) => x)).size;
}

describe('a machine without Chromium', () => {
  it('When the browser is started, then the error names Chromium, what it is for and how to install it', async () => {
    await expect(startBrowser({ PATH: '/nonexistent' })).rejects.toThrow(
      'Missing chromium on PATH:\n  - chromium, for opening the HTML reports in a headless browser (test/tooling/report.test.ts): install Chromium (Debian/Ubuntu: apt-get install chromium)',
    );
  });
});

describe('npm run report', () => {
  it('When given a recorded run and --image, then it writes the page beside the JSON and its main chart as an SVG', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'report-cli-'));
    const json = join(dir, 'run.json');
    const image = join(dir, 'main.svg');
    await writeFile(
      json,
      await readFile(join(import.meta.dirname, '..', 'fixtures', 'bench-run.json')),
    );

    const result = spawnSync(
      process.execPath,
      [join(projectRoot, 'tooling', 'report.ts'), json, '--image', image],
      { encoding: 'utf8' },
    );

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const html = await readFile(join(dir, 'run.html'), 'utf8');
    const chaosDir = await mkdtemp(join(tmpdir(), 'report-cli-chaos-'));
    await writeFile(
      join(chaosDir, 'run.json'),
      await readFile(join(import.meta.dirname, '..', 'fixtures', 'chaos-run.json')),
    );
    const chaos = spawnSync(
      process.execPath,
      [join(projectRoot, 'tooling', 'report.ts'), join(chaosDir, 'run.json')],
      { encoding: 'utf8' },
    );
    expect(chaos.status).toBe(0);
    // Where the chaos run itself writes its page.
    expect(await readFile(join(chaosDir, 'report.html'), 'utf8')).toContain(
      'data-chart="answered"',
    );
    const svg = await readFile(image, 'utf8');
    expect(html).toContain('data-chart="latency-vs-rate"');
    expect(svg.startsWith('<svg')).toBe(true);
    const report = await recorded<Report>('bench-run.json');
    const e2e = report.results.find(({ variant }) => variant === 'e2e');
    for (const step of e2e?.openLoop?.rates ?? [])
      expect(svg).toContain(
        `data-series="e2e p99" data-x="${String(step.offered)}" data-y="${String(step.p99)}"`,
      );
  });
});
