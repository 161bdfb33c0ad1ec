import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS, serviceRegistry } from '#shared/metrics.ts';

export interface GatewayMetrics {
  readonly registry: Registry;
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly creates: Counter<'code'>;
  readonly replyTimeouts: Counter;
  readonly refusalsDelayed: Counter;
  readonly produceDuration: Histogram<'outcome'>;
  readonly repliesFetched: Counter;
  readonly replyBytesFetched: Counter;
}

/** The bounds the gateway refuses creates beyond, exported so that alerts compare with them. */
export interface GatewayBounds {
  maxInFlight: number;
  maxEventLoopDelayMs: number;
}

/** What the gateway's gauges read at each scrape. */
export interface GatewayGauges {
  /** Creates published and waiting for a reply. */
  waiting: () => number;
  /** Creates admitted at once now (`concurrency-limit.ts`). */
  admitted: () => number;
  /** The latency the admission limit takes as the path's own, in ms; undefined until learned. */
  pathLatencyMs: () => number | undefined;
  /** Whether `/readyz` answers 200. */
  ready: () => boolean;
}

/** The gauges of the gateway's readiness, bounds and admission, read at each scrape. */
function registerGauges(registers: Registry[], gauges: GatewayGauges, bounds: GatewayBounds): void {
  new Gauge({
    name: 'plant_store_gateway_ready',
    help: '1 while the gateway serves creates (what /readyz answers 200 for), else 0',
    registers,
    collect() {
      this.set(gauges.ready() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'plant_store_gateway_max_in_flight',
    help: 'MAX_IN_FLIGHT: creates waiting for a reply beyond which the gateway answers 503',
    registers,
  }).set(bounds.maxInFlight);
  new Gauge({
    name: 'plant_store_gateway_max_event_loop_delay_seconds',
    help: 'MAX_EVENT_LOOP_DELAY_MS in seconds: mean event-loop delay beyond which the gateway answers 503 (0: off)',
    registers,
  }).set(bounds.maxEventLoopDelayMs / 1000);
  new Gauge({
    name: 'plant_store_gateway_admission_limit',
    help: 'Creates the gateway admits at once now: lowered while creates take longer than CREATE_LATENCY_TARGET_MS (or twice the path latency), at most MAX_IN_FLIGHT; beyond it 503',
    registers,
    collect() {
      this.set(gauges.admitted());
    },
  });
  new Gauge({
    name: 'plant_store_gateway_admission_path_latency_seconds',
    help: 'The latency of a create without a queue, as the admission limit learned it (the distance to Kafka and the store); NaN until learned',
    registers,
    collect() {
      this.set((gauges.pathLatencyMs() ?? Number.NaN) / 1000);
    },
  });
  new Gauge({
    name: 'plant_store_gateway_replies_waiting',
    help: 'Create requests published and waiting for a writer to reply (bounded by MAX_IN_FLIGHT)',
    registers,
    collect() {
      this.set(gauges.waiting());
    },
  });
}

/** The gateway's Prometheus metrics. */
export function gatewayMetrics(gauges: GatewayGauges, bounds: GatewayBounds): GatewayMetrics {
  const registry = serviceRegistry('gateway');
  const registers = [registry];
  registerGauges(registers, gauges, bounds);
  return {
    registry,
    httpDuration: new Histogram({
      name: 'plant_store_http_request_duration_seconds',
      help: 'HTTP requests by route pattern and status, from the request read to the answer sent',
      labelNames: ['method', 'route', 'status_code'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    creates: new Counter({
      name: 'plant_store_gateway_creates_total',
      help: 'Answers to POST /plants by outcome: 200, or the error code of the Error body (4009, 5040, …)',
      labelNames: ['code'],
      registers,
    }),
    replyTimeouts: new Counter({
      name: 'plant_store_gateway_reply_timeouts_total',
      help: 'Creates answered 504/5040 because no writer replied within REPLY_TIMEOUT_MS',
      registers,
    }),
    refusalsDelayed: new Counter({
      name: 'plant_store_gateway_auth_refusals_delayed_total',
      help: 'Refused bearer tokens answered after AUTH_REFUSAL_DELAY_MS: beyond AUTH_REFUSALS_PER_SECOND',
      registers,
    }),
    produceDuration: new Histogram({
      name: 'plant_store_gateway_kafka_produce_duration_seconds',
      help: 'Kafka sends of create commands (one send carries every command queued behind the last)',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    repliesFetched: new Counter({
      name: 'plant_store_gateway_replies_fetched_total',
      help: 'Records the reply consumer fetched, its own replies and any other on its partition',
      registers,
    }),
    replyBytesFetched: new Counter({
      name: 'plant_store_gateway_reply_bytes_fetched_total',
      help: 'Bytes of the records the reply consumer fetched: keys, values and headers',
      registers,
    }),
  };
}
