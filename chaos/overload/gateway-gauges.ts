import { setTimeout as sleep } from 'node:timers/promises';
import { sampleValue } from '../observe/scrape.ts';

/** What the gateway's /metrics said at one second of the load. */
export interface GatewaySample {
  at: number;
  /** Creates answered 200, and refused 503/5030, since the previous sample. */
  answered: number;
  refused: number;
  /** `plant_store_gateway_admission_limit`: creates admitted at once. */
  admissionLimit: number;
  /** `plant_store_gateway_admission_path_latency_seconds` in ms: NaN until the gateway learned it. */
  pathLatencyMs: number;
  /** `plant_store_gateway_replies_waiting`. */
  waiting: number;
  /** The longest event-loop delay prom-client saw since the previous scrape, in ms. */
  loopDelayMaxMs: number;
  /** Time in major garbage collections since the previous sample, in ms. */
  majorGcMs: number;
}

/**
 * The gateway's own counts, scraped each second while the load runs (vegeta's results are read
 * only once each load is over): the progress line, and the admission limit beside the answers.
 */
export function sampleGateway(url: string, onSample: (sample: GatewaySample) => void) {
  const samples: GatewaySample[] = [];
  let running = true;
  const scrape = async () => {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(900) })).text();
    const creates = 'plant_store_gateway_creates_total';
    return {
      answered: sampleValue(text, creates, { code: '200' }),
      refused: sampleValue(text, creates, { code: '5030' }),
      admissionLimit: sampleValue(text, 'plant_store_gateway_admission_limit'),
      pathLatency: sampleValue(text, 'plant_store_gateway_admission_path_latency_seconds'),
      waiting: sampleValue(text, 'plant_store_gateway_replies_waiting'),
      loopDelayMax: sampleValue(text, 'nodejs_eventloop_lag_max_seconds'),
      majorGc: sampleValue(text, 'nodejs_gc_duration_seconds_sum', { kind: 'major' }),
    };
  };
  const loop = async () => {
    let last: Awaited<ReturnType<typeof scrape>> | undefined;
    while (running) {
      const startedAt = Date.now();
      const now = await scrape().catch(() => undefined);
      if (now !== undefined && last !== undefined) {
        const sample = {
          at: startedAt,
          answered: (now.answered || 0) - (last.answered || 0),
          refused: (now.refused || 0) - (last.refused || 0),
          admissionLimit: now.admissionLimit,
          pathLatencyMs: now.pathLatency * 1_000,
          waiting: now.waiting,
          loopDelayMaxMs: now.loopDelayMax * 1_000,
          majorGcMs: ((now.majorGc || 0) - (last.majorGc || 0)) * 1_000,
        };
        samples.push(sample);
        onSample(sample);
      }
      last = now ?? last;
      await sleep(Math.max(0, 1_000 - (Date.now() - startedAt)));
    }
  };
  const looping = loop();
  return {
    samples,
    async stop() {
      running = false;
      await looping;
    },
  };
}
