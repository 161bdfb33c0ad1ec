/** What one gateway's reply consumer fetched: records and their bytes. */
export interface ReplyFetches {
  records: number;
  bytes: number;
}

const COUNTERS = {
  records: 'plant_store_gateway_replies_fetched_total',
  bytes: 'plant_store_gateway_reply_bytes_fetched_total',
} as const;

/** Each gateway's counters now, read from its `/metrics`, in the order of `urls`. */
export function replyFetchesOf(urls: readonly string[]): Promise<ReplyFetches[]> {
  return Promise.all(
    urls.map(async (url) => replyFetchesIn(await (await fetch(`${url}/metrics`)).text())),
  );
}

/** The counters in a gateway's `/metrics` text. */
export function replyFetchesIn(text: string): ReplyFetches {
  return { records: counter(text, COUNTERS.records), bytes: counter(text, COUNTERS.bytes) };
}

/** What each gateway fetched between two readings. */
export function fetchedBetween(
  before: readonly ReplyFetches[],
  after: readonly ReplyFetches[],
): ReplyFetches[] {
  return after.map(({ records, bytes }, index) => ({
    records: records - (before[index]?.records ?? 0),
    bytes: bytes - (before[index]?.bytes ?? 0),
  }));
}

/** The value of the counter `name`, with the service's default labels or none. */
function counter(text: string, name: string): number {
  const line = text
    .split('\n')
    .find((each) => each.startsWith(`${name} `) || each.startsWith(`${name}{`));
  if (line === undefined) throw new Error(`the gateway's /metrics has no ${name}`);
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}
