import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p90: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  token: string;
  connections: number;
  /** Seconds, or a fixed number of requests. */
  duration?: number;
  amount?: number;
  /** Requests per second over all connections; unlimited when absent. */
  overallRate?: number;
  /** Every request creates a new plant: ids count up from here. */
  firstId: bigint;
}

/** POST /plants under autocannon, each request with an id never used before. */
export async function loadPlants(options: LoadOptions): Promise<LoadResult> {
  let nextId = options.firstId;
  const result = await autocannon({
    url: `${options.url}/plants`,
    connections: options.connections,
    ...(options.amount === undefined
      ? { duration: options.duration ?? 10 }
      : { amount: options.amount }),
    ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
    method: 'POST',
    headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (request) => {
          const id = nextId++;
          return { ...request, body: `{"id":${id},"name":"Plant ${id}","tag":"bench"}` };
        },
      },
    ],
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
