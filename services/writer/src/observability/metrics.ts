import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LATENCY_BUCKETS, serviceRegistry } from '#shared/metrics.ts';

/** Committed-offset lag of one partition this writer owns. */
export interface PartitionLag {
  topic: string;
  partition: number;
  lag: number;
}

export interface WriterMetrics {
  readonly registry: Registry;
  readonly batchSize: Histogram;
  readonly batchDuration: Histogram;
  readonly storeDuration: Histogram<'operation' | 'outcome'>;
  readonly commands: Counter<'outcome'>;
  readonly deadLetters: Counter;
  readonly storeRetries: Counter;
  readonly plantsRemembered: Counter;
  readonly undeliverableReplies: Counter<'reason'>;
  readonly sendRetries: Counter;
  readonly replyDelay: Histogram;
}

/** What the writer's gauges read at each scrape. */
export interface WriterGauges {
  lags: () => Promise<PartitionLag[]>;
  /** Whether `/readyz` answers 200. */
  ready: () => boolean;
  /** How long the store has not answered this writer's operations (0 while it answers). */
  storeSilentMs: () => number;
  /** How long the store has refused every insert of this writer (0 while it stores). */
  storeRefusingMs: () => number;
  /** The store's lowest round trip of the last 5 to 10 s (store-distance.ts); undefined before one. */
  storeRoundTripMs: () => number | undefined;
}

/** The gauges of the store's state, the writer's readiness and its lag, read at each scrape. */
function registerGauges(registers: Registry[], gauges: WriterGauges): void {
  const { lags, ready } = gauges;
  new Gauge({
    name: 'plant_store_writer_store_silent_seconds',
    help: 'How long the store has not answered this writer’s operations (0 while it answers or none waits)',
    registers,
    collect() {
      this.set(gauges.storeSilentMs() / 1_000);
    },
  });
  new Gauge({
    name: 'plant_store_writer_store_refusing_seconds',
    help: 'How long the store has answered every insert of this writer with an error of its own, none stored since (0 while it stores)',
    registers,
    collect() {
      this.set(gauges.storeRefusingMs() / 1_000);
    },
  });
  new Gauge({
    name: 'plant_store_writer_store_round_trip_seconds',
    help: 'The lowest round trip of the driver’s checks of the store over the last 5 to 10 s: from 10 ms on, the writer takes the store for far and overlaps its work after 5 ms; NaN before the first check',
    registers,
    collect() {
      this.set((gauges.storeRoundTripMs() ?? Number.NaN) / 1_000);
    },
  });
  new Gauge({
    name: 'plant_store_writer_ready',
    help: '1 while the writer takes commands (what /readyz answers 200 for), else 0',
    registers,
    collect() {
      this.set(ready() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'plant_store_writer_consumer_lag',
    help: 'Create commands on a partition this writer owns that its group has not committed yet',
    labelNames: ['topic', 'partition'],
    registers,
    async collect() {
      this.reset();
      for (const { topic, partition, lag } of await lags()) {
        this.set({ topic, partition: String(partition) }, lag);
      }
    },
  });
}

/** The writer's Prometheus metrics. */
export function writerMetrics(gauges: WriterGauges): WriterMetrics {
  const registry = serviceRegistry('writer');
  const registers = [registry];
  registerGauges(registers, gauges);
  return {
    registry,
    batchSize: new Histogram({
      name: 'plant_store_writer_batch_size',
      help: 'Commands in each partition batch the writer answered',
      buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000],
      registers,
    }),
    batchDuration: new Histogram({
      name: 'plant_store_writer_batch_duration_seconds',
      help: 'From a partition batch in hand to its replies sent (its offsets are committed within 100 ms)',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    storeDuration: new Histogram({
      name: 'plant_store_writer_store_duration_seconds',
      help: 'Store round trips: one insert of a batch’s new plants, the reads of its duplicates',
      labelNames: ['operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    commands: new Counter({
      name: 'plant_store_writer_commands_total',
      help: 'Create commands answered, by outcome: 200, 4009 (conflict), 4000/4001 (invalid, DLQ)',
      labelNames: ['outcome'],
      registers,
    }),
    deadLetters: new Counter({
      name: 'plant_store_writer_dlq_messages_total',
      help: 'Invalid create commands copied to the dead-letter topic',
      registers,
    }),
    storeRetries: new Counter({
      name: 'plant_store_writer_store_retries_total',
      help: 'Batches that found the store unavailable and waited for it, unanswered and uncommitted',
      registers,
    }),
    plantsRemembered: new Counter({
      name: 'plant_store_writer_plants_remembered_total',
      help: 'Plants a batch of creates asked for (repeats, conflicts) that the writer remembered as stored, so none of the batch’s commands for them needed the store',
      registers,
    }),
    undeliverableReplies: new Counter({
      name: 'plant_store_writer_undeliverable_replies_total',
      help: 'Replies given up, their commands copied to the DLQ, by reason: invalid_topic, own_topic, invalid_partition (refused before sending), send_failed (refused by Kafka)',
      labelNames: ['reason'],
      registers,
    }),
    sendRetries: new Counter({
      name: 'plant_store_writer_send_retries_total',
      help: 'Batches whose replies or DLQ copies Kafka did not take and that waited, unanswered and uncommitted',
      registers,
    }),
    replyDelay: new Histogram({
      name: 'plant_store_writer_reply_delay_seconds',
      help: 'From a command’s Kafka timestamp to its reply sent: how long its producer waited',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
  };
}
