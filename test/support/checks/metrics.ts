/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

/** The samples of a scrape, comments skipped. */
export function parseMetrics(text: string): Sample[] {
  return text.split('\n').flatMap((line) => {
    const [, name, labels = '', value] = SAMPLE.exec(line) ?? [];
    if (name === undefined || value === undefined) return [];
    return [
      {
        name,
        labels: Object.fromEntries(
          [...labels.matchAll(LABEL)].map(([, key = '', text = '']): [string, string] => [
            key,
            text,
          ]),
        ),
        value: Number(value),
      },
    ];
  });
}

/**
 * The sum of the samples named `name` whose labels include `labels` (0 when none): a counter
 * without its other labels, or one series.
 */
export function metric(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, { value }) => sum + value, 0);
}
