import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  /** Latencies of the 2xx answers in ms, to 0.01 ms (autocannon's own histogram keeps whole ms). */
  p50: number;
  p90: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  /** Gateways to load; connections and rate are split evenly between them. */
  urls: readonly string[];
  token: string;
  connections: number;
  /** Seconds, or a fixed number of requests. */
  duration?: number;
  amount?: number;
  /** Requests per second over all connections; unlimited when absent. */
  overallRate?: number;
  /** Every request creates a new plant: ids count up from here. */
  firstId: bigint;
  /** Where the ids come from instead (retries of plants stored before). */
  pickId?: () => bigint;
}

interface Run {
  result: autocannon.Result;
  latencies: number[];
}

/** POST /plants under autocannon, each request with an id never used before. */
export async function loadPlants(options: LoadOptions): Promise<LoadResult> {
  let nextId = options.firstId;
  const nextBody = () => {
    const id = options.pickId?.() ?? nextId++;
    return plantBody(id);
  };
  const share = (total: number, index: number) =>
    Math.floor(total / options.urls.length) + (index < total % options.urls.length ? 1 : 0);
  const runs = await Promise.all(
    options.urls.map((url, index) =>
      runAutocannon({
        url: `${url}/plants`,
        connections: share(options.connections, index),
        ...(options.amount === undefined
          ? { duration: options.duration ?? 10 }
          : { amount: share(options.amount, index) }),
        ...(options.overallRate === undefined
          ? {}
          : { overallRate: share(options.overallRate, index) }),
        method: 'POST',
        headers: {
          authorization: `Bearer ${options.token}`,
          'content-type': 'application/json',
        },
        requests: [{ setupRequest: (request) => ({ ...request, body: nextBody() }) }],
      }),
    ),
  );
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const sum = (pick: (result: autocannon.Result) => number) =>
    runs.reduce((total, { result }) => total + pick(result), 0);
  return {
    requestsPerSecond: Math.round(sum((result) => result.requests.average)),
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    requests: sum((result) => result.requests.total),
    non2xx: sum((result) => result.non2xx),
    errors: sum((result) => result.errors + result.timeouts),
  };
}

/** The body of every plant the benchmark creates, or preloads: a retry of it answers 200. */
export function plantBody(id: bigint): string {
  return `{"id":${id},"name":"Plant ${id}","tag":"bench"}`;
}

/** One autocannon instance, keeping the exact time of every 2xx answer. */
function runAutocannon(options: autocannon.Options): Promise<Run> {
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, result) => {
      if (error) reject(error instanceof Error ? error : new Error('autocannon failed'));
      else resolve({ result, latencies });
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
  });
}

/** Nearest-rank percentile of ascending values, rounded to 0.01. */
export function percentile(sorted: readonly number[], p: number): number {
  const value = sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  return Math.round(value * 100) / 100;
}
