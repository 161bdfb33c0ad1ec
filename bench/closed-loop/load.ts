import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { elapsed } from '#tooling/progress/progress-line.ts';
import { runningP99 } from '#tooling/statistics/running-p99.ts';
import { percentile } from '#tooling/statistics/percentile.ts';

export interface LoadResult {
  requestsPerSecond: number;
  /** Latencies of the 2xx answers in ms, to 0.01 ms (autocannon's own histogram keeps whole ms). */
  p50: number;
  p90: number;
  p99: number;
  /** Requests answered, 2xx or not. */
  requests: number;
  non2xx: number;
  /** Requests without an answer: connection errors and timeouts. */
  errors: number;
  /**
   * The non-2xx answers by status, and `no answer` for the errors (absent from reports written
   * before they were kept).
   */
  failures?: Record<string, number>;
  /** Each second of the load (absent from reports written before it was kept). */
  perSecond?: LoadSecond[];
  /** The latency distribution of the 2xx answers: ms at each of `DISTRIBUTION` (absent before). */
  distribution?: number[];
}

/** One second of a load: answers in it, and the latencies of its 2xx answers in ms. */
export interface LoadSecond {
  answered: number;
  failed: number;
  p50: number;
  p99: number;
}

/** The percentiles a load's latency distribution is kept at, for its percentile curve. */
export const DISTRIBUTION = [0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100] as const;

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
  /** Retries of plants stored before instead: ids picked at random among `count` from `first`. */
  retryOf?: { first: bigint; count: number };
}

interface Run {
  result: autocannon.Result;
  latencies: number[];
}

/** How a load is going, once a second while it runs. */
export interface LoadTick {
  elapsedMs: number;
  /** Requests answered in the second just ended, 2xx or not. */
  lastSecond: number;
  /** That second on its own. */
  second: LoadSecond;
  /** Requests answered other than 2xx, or not answered, so far. */
  failed: number;
  /** Of the 2xx answers so far, in ms. */
  p99Ms: number;
}

/** A tick as the progress line shows it: the phase, how far along, and how it is going. */
export function tickLine(phase: string, totalSeconds: number, tick: LoadTick): string {
  return `  ${phase}: ${elapsed(tick.elapsedMs)} of ${String(totalSeconds)} s, ${String(tick.lastSecond)} req/s, p99 so far ${tick.p99Ms.toFixed(1)} ms, ${String(tick.failed)} failed`;
}

/** What the load worker posts: a tick each second, then the result. */
type WorkerMessage = { tick: LoadTick } | { result: LoadResult };

/** Counts the answers of a load as they come, for its ticks. */
function tickCounter() {
  const startedAt = Date.now();
  const latencies = runningP99();
  let answered = 0;
  let failed = 0;
  let answeredBefore = 0;
  let failedBefore = 0;
  let second: number[] = [];
  return {
    answer(statusCode: number, responseTimeMs: number) {
      answered++;
      if (statusCode >= 200 && statusCode < 300) {
        latencies.record(responseTimeMs);
        second.push(responseTimeMs);
      } else failed++;
    },
    error() {
      failed++;
    },
    tick(): LoadTick {
      const lastSecond = answered - answeredBefore;
      const sorted = second.sort((a, b) => a - b);
      const tick = {
        elapsedMs: Date.now() - startedAt,
        lastSecond,
        second: {
          answered: lastSecond,
          failed: failed - failedBefore,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
        },
        failed,
        p99Ms: latencies.p99Ms(),
      };
      answeredBefore = answered;
      failedBefore = failed;
      second = [];
      return tick;
    },
  };
}

/** The creates a load answered 2xx. */
export function createsAnswered(load: LoadResult): number {
  return load.requests - load.non2xx;
}

/**
 * POST /plants under autocannon, each request with an id never used before, in a worker thread of
 * its own, so that every load starts from a fresh heap whatever ran before it in the benchmark.
 */
export function loadPlants(
  options: LoadOptions,
  onTick: (tick: LoadTick) => void = () => undefined,
): Promise<LoadResult> {
  const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: options });
  return new Promise((resolve, reject) => {
    worker.on('message', (message: WorkerMessage) => {
      if ('tick' in message) onTick(message.tick);
      else resolve(message.result);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      reject(new Error(`the load worker exited (${String(code)}) without a result`));
    });
  });
}

/** `loadPlants` in the calling thread, calling `onTick` every second while it runs. */
export async function runLoad(
  options: LoadOptions,
  onTick: (tick: LoadTick) => void = () => undefined,
): Promise<LoadResult> {
  const counter = tickCounter();
  const perSecond: LoadSecond[] = [];
  const ticks = setInterval(() => {
    const tick = counter.tick();
    perSecond.push(tick.second);
    onTick(tick);
  }, 1_000);
  try {
    return { ...(await runEachGateway(options, counter)), perSecond };
  } finally {
    clearInterval(ticks);
  }
}

async function runEachGateway(
  options: LoadOptions,
  counter: ReturnType<typeof tickCounter>,
): Promise<LoadResult> {
  let nextId = options.firstId;
  const { retryOf } = options;
  const nextBody = () => {
    const id =
      retryOf === undefined
        ? nextId++
        : retryOf.first + BigInt(Math.floor(Math.random() * retryOf.count));
    return plantBody(id);
  };
  const share = (total: number, index: number) =>
    Math.floor(total / options.urls.length) + (index < total % options.urls.length ? 1 : 0);
  const runs = await Promise.all(
    options.urls.map((url, index) =>
      runAutocannon(
        {
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
        },
        counter,
      ),
    ),
  );
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const sum = (pick: (result: autocannon.Result) => number) =>
    runs.reduce((total, { result }) => total + pick(result), 0);
  const answered = (result: autocannon.Result) => result['2xx'] + result.non2xx;
  // Counted, not averaged from autocannon's per-second histogram: outside the main thread
  // autocannon leaves that histogram encoded, as it does for its own worker mode.
  return {
    requestsPerSecond: Math.round(sum((result) => answered(result) / result.duration)),
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    requests: sum(answered),
    non2xx: sum((result) => result.non2xx),
    // autocannon counts a timeout among its errors too.
    errors: sum((result) => result.errors),
    failures: failuresOf(runs.map(({ result }) => result)),
    distribution: DISTRIBUTION.map((p) => percentile(latencies, p)),
  };
}

/** Non-2xx answers by status over `results`, and `no answer` for their errors; none: empty. */
function failuresOf(results: readonly autocannon.Result[]): Record<string, number> {
  const failures: Record<string, number> = {};
  const add = (key: string, count: number) => {
    if (count > 0) failures[key] = (failures[key] ?? 0) + count;
  };
  for (const result of results) {
    for (const [status, { count = 0 }] of Object.entries(result.statusCodeStats ?? {}))
      if (!status.startsWith('2')) add(status, count);
    add('no answer', result.errors);
  }
  return failures;
}

/** The body of every plant the benchmark creates, or preloads: a retry of it answers 200. */
export function plantBody(id: bigint): string {
  return `{"id":${id},"name":"Plant ${id}","tag":"bench"}`;
}

/** One autocannon instance, keeping the exact time of every 2xx answer; `counter` sees each. */
function runAutocannon(
  options: autocannon.Options,
  counter: ReturnType<typeof tickCounter>,
): Promise<Run> {
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, result) => {
      if (error) reject(error instanceof Error ? error : new Error('autocannon failed'));
      else resolve({ result, latencies });
    });
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      counter.answer(statusCode, responseTime);
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    });
    instance.on('reqError', () => {
      counter.error();
    });
  });
}
