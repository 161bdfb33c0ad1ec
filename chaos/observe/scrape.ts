import { setTimeout as sleep } from 'node:timers/promises';

/** What one scrape of every target read: each series (with its `instance`) and its value. */
export interface Scrape {
  at: number;
  series: Map<string, number>;
}

/** How often the run scrapes, as a Prometheus would (the rule test's interval). */
export const SCRAPE_EVERY_MS = 5_000;
/**
 * A Prometheus's scrape timeout, within the interval: a writer's /metrics waits up to 2 s for
 * Kafka's offsets (its lag) while the broker is away.
 */
const SCRAPE_WAIT_MS = 4_000;
/** `name{labels} value [timestamp]` of the text exposition format. */
const SAMPLE_LINE = /^([A-Za-z_:][\w:]*)(\{.*\})?\s+(\S+)(?:\s+-?\d+)?$/;

/**
 * Scrapes the `/metrics` of every URL `targets` gives (each a service's base URL) every
 * SCRAPE_EVERY_MS, keeping the series `keep` accepts by name; a target that does not answer in
 * time is missing from that scrape, as from a Prometheus's.
 */
export function startScraping(
  targets: () => readonly string[],
  keep: (name: string) => boolean,
): { scrapes: Scrape[]; stop(): Promise<void> } {
  const scrapes: Scrape[] = [];
  const stopped = new AbortController();
  const loop = (async () => {
    const startedAt = Date.now();
    for (let index = 0; !stopped.signal.aborted; index++) {
      const at = startedAt + index * SCRAPE_EVERY_MS;
      await sleep(Math.max(0, at - Date.now()));
      const read = await Promise.all(targets().map((url) => scrapeOne(url, keep)));
      scrapes.push({ at, series: new Map(read.flat()) });
    }
  })();
  return {
    scrapes,
    async stop() {
      stopped.abort();
      await loop;
    },
  };
}

async function scrapeOne(
  url: string,
  keep: (name: string) => boolean,
): Promise<[string, number][]> {
  try {
    const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(SCRAPE_WAIT_MS) });
    if (!response.ok) return [];
    return seriesOf(await response.text(), new URL(url).host, keep);
  } catch {
    return [];
  }
}

/** The samples of an exposition, each series named with its labels and `instance` added. */
export function seriesOf(
  text: string,
  instance: string,
  keep: (name: string) => boolean,
): [string, number][] {
  return text.split('\n').flatMap((line): [string, number][] => {
    const [, name, labels, value] = SAMPLE_LINE.exec(line.trim()) ?? [];
    if (name === undefined || value === undefined || !keep(name)) return [];
    const number = Number(value);
    if (!Number.isFinite(number)) return [];
    const inner = labels === undefined ? '' : labels.slice(1, -1);
    const all = [`instance="${instance}"`, ...(inner === '' ? [] : [inner])].join(',');
    return [[`${name}{${all}}`, number]];
  });
}

/**
 * The value of the first sample of `name` in an exposition whose labels include `labels`; NaN
 * when it has none.
 */
export function sampleValue(
  text: string,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  for (const line of text.split('\n')) {
    const [, found, set = '', value] = SAMPLE_LINE.exec(line.trim()) ?? [];
    const has = (pair: string) => set.includes(`{${pair}`) || set.includes(`,${pair}`);
    if (found === name && value !== undefined && wanted.every(has)) return Number(value);
  }
  return Number.NaN;
}
