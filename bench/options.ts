import { brokerCount } from '#local/kafka/broker-count.ts';
import { LOG_LEVELS } from '#shared/service-settings.ts';
import { readFlags } from '#tooling/cli/command-line.ts';

const VARIANTS = ['bare', 'ceiling', 'direct', 'e2e', 'nestjs'] as const;
/** What `--variants` measures when not given: `bare` only when asked for. */
const DEFAULT_VARIANTS = VARIANTS.filter((variant) => variant !== 'bare');
export type Variant = (typeof VARIANTS)[number];

export interface BenchOptions {
  /** Measured in this order, backwards in every second repetition. */
  variants: Variant[];
  connections: number;
  /** Seconds measured per variant. */
  duration: number;
  /** Seconds of the same load before measuring (0: none). */
  warmup: number;
  /** Creates sent one after the other by one client after the load (0: none). */
  sequential: number;
  repeat: number;
  partitions: number;
  writers: number;
  gateways: number;
  brokers: number;
  store: 'sqlite' | 'postgresql' | undefined;
  secure: boolean;
  /** Plants written straight into the store before e2e is measured again beside retries (0: none). */
  preload: number;
  /** Seconds of e2e at 80 % of its peak after the last repetition (0: none). */
  soakSeconds: number;
  logLevel: (typeof LOG_LEVELS)[number];
  idsBeyond2To53: boolean;
  cpuProfile: boolean;
  /** Steady arrival rates each variant is measured at after its closed loop (`--rates`). */
  rates: number[];
  /** The p99 in ms at which each variant's capacity is searched (`--capacity`); null: none. */
  capacityTargetMs: number | null;
  /** Ms each way between the writers (and the direct variant) and the store (`--store-delay`); 0: none. */
  storeDelayMs: number;
}

/** Rates one run may list: with a capacity search's steps they stay within a measurement's ids. */
const MAX_RATES = 32;

/** A capacity step measures at least this long, so that a short stall shows in its p99. */
const CAPACITY_MIN_SECONDS = 20;

export const USAGE = `npm run bench -- [flags]
  --variants ${DEFAULT_VARIANTS.join(',')}  which to measure, in this order; also bare
                        (a plain node:http server answering the same JSON)
  --connections 64      connections of the load
  --duration 20         seconds measured per variant
  --warmup 60           at most this many seconds of the same load before, in steps of 5 s,
                        until neither CPU per create nor p99 falls by 5 % in a step (0: none)
  --sequential 1000     then creates one after the other from one client (not bare or ceiling; 0: none)
  --repeat 1            the whole comparison N times (1 to 30), in alternating order
  --partitions 3        partitions of the topics (1 to 1000)
  --writers 1           writer processes of e2e and nestjs
  --gateways 1          gateway processes of e2e and nestjs
  --brokers 1           1, or 3 for a replicated cluster
  --store sqlite|postgresql  FerretDB's backend (PostgreSQL where installed)
  --secure              Kafka on SASL_SSL with ACLs, the store on TLS
  --preload 0           then e2e again beside retries, with N more plants stored
  --soak 0              then e2e at 80 % of its peak for N seconds: RSS growth
  --log-level info      the services' LOG_LEVEL, as they ship (${LOG_LEVELS.join(', ')})
  --ids-beyond-2-53     every id from 2^60 (not with nestjs)
  --cpu-prof            where each Node process spent its CPU (sampled by Linux perf where
                        it runs, else by V8)
  --rates 500,1000      then each variant at these steady arrival rates (open loop, vegeta),
                        --duration s each: p50/p99/p99.9 from intended send time, errors
  --capacity 50         then each variant's highest steady rate with p99 ≤ 50 ms and no error,
                        to within 10 %, --duration (≥ 20) s per step
  --store-delay 0       ms each way between the store and its clients (the writers, direct,
                        nestjs), through a TCP proxy: a store in another zone (needs Go once)
  --help                this text`;

const FLAGS = {
  variants: { type: 'string', default: DEFAULT_VARIANTS.join(',') },
  connections: { type: 'string', default: '64' },
  duration: { type: 'string', default: '20' },
  warmup: { type: 'string', default: '60' },
  sequential: { type: 'string', default: '1000' },
  repeat: { type: 'string', default: '1' },
  partitions: { type: 'string', default: '3' },
  writers: { type: 'string', default: '1' },
  gateways: { type: 'string', default: '1' },
  brokers: { type: 'string', default: '1' },
  store: { type: 'string' },
  secure: { type: 'boolean', default: false },
  preload: { type: 'string', default: '0' },
  soak: { type: 'string', default: '0' },
  'log-level': { type: 'string', default: 'info' },
  'ids-beyond-2-53': { type: 'boolean', default: false },
  'cpu-prof': { type: 'boolean', default: false },
  rates: { type: 'string' },
  capacity: { type: 'string' },
  'store-delay': { type: 'string', default: '0' },
} as const;

/** `npm run bench` flags, checked: an error names the flag and what it takes; `'help'` for --help. */
export function benchOptions(args: string[]): BenchOptions | 'help' {
  const flags = readFlags({ args, options: FLAGS });
  if (flags === 'help') return 'help';
  const { values } = flags;
  const variants = variantsOf(values);
  const store = storeOf(values.store);
  const logLevel = LOG_LEVELS.find((level) => level === values['log-level']);
  if (logLevel === undefined)
    throw new Error(`--log-level takes ${LOG_LEVELS.join(', ')}; got "${values['log-level']}"`);
  const { rates, capacityTargetMs, duration } = openLoopOf(values);
  const preload = count(values.preload, '--preload', 'plants', 0);
  if (preload > 0 && (rates.length > 0 || capacityTargetMs !== null))
    throw new Error('--preload runs without --rates and --capacity (their ids would overlap)');
  return {
    variants,
    connections: count(values.connections, '--connections', 'connections', 1),
    duration,
    warmup: count(values.warmup, '--warmup', 'seconds', 0),
    sequential: count(values.sequential, '--sequential', 'creates', 0),
    repeat: count(values.repeat, '--repeat', 'repetitions', 1, 30),
    // The services' own bound on KAFKA_PARTITIONS.
    partitions: count(values.partitions, '--partitions', 'partitions', 1, 1000),
    writers: count(values.writers, '--writers', 'writer processes', 1),
    gateways: count(values.gateways, '--gateways', 'gateway processes', 1),
    brokers: brokerCount(values.brokers),
    store,
    secure: values.secure,
    preload,
    soakSeconds: count(values.soak, '--soak', 'seconds', 0),
    logLevel,
    idsBeyond2To53: values['ids-beyond-2-53'],
    cpuProfile: values['cpu-prof'],
    rates,
    capacityTargetMs,
    storeDelayMs: count(values['store-delay'], '--store-delay', 'milliseconds', 0, 10_000),
  };
}

function variantsOf(values: {
  variants: string;
  secure: boolean;
  'ids-beyond-2-53': boolean;
}): Variant[] {
  const variants = values.variants.split(',').map((name) => name.trim());
  const unknown = variants.find((name) => !(VARIANTS as readonly string[]).includes(name));
  if (unknown !== undefined)
    throw new Error(`--variants takes ${VARIANTS.join(', ')}; got "${unknown}"`);
  if (variants.includes('nestjs') && (values.secure || values['ids-beyond-2-53']))
    throw new Error(
      '--variants nestjs runs without --secure and --ids-beyond-2-53 (its JSON numbers are doubles)',
    );
  return variants as Variant[];
}

function storeOf(store: string | undefined): BenchOptions['store'] {
  if (store !== undefined && store !== 'sqlite' && store !== 'postgresql')
    throw new Error(`--store takes sqlite or postgresql; got "${store}"`);
  return store;
}

/** `--rates` and `--capacity`, and `--duration`, which a capacity search's steps bound below. */
function openLoopOf(values: {
  rates?: string | undefined;
  capacity?: string | undefined;
  duration: string;
}): Pick<BenchOptions, 'rates' | 'capacityTargetMs' | 'duration'> {
  const rates =
    values.rates === undefined
      ? []
      : values.rates
          .split(',')
          .map((rate) => count(rate.trim(), '--rates', 'requests a second', 1));
  if (rates.length > MAX_RATES)
    throw new Error(
      `--rates takes at most ${String(MAX_RATES)} rates; got ${String(rates.length)}`,
    );
  const capacityTargetMs =
    values.capacity === undefined
      ? null
      : count(values.capacity, '--capacity', 'milliseconds of p99', 1);
  const duration = count(values.duration, '--duration', 'seconds', 1);
  if (capacityTargetMs !== null && duration < CAPACITY_MIN_SECONDS)
    throw new Error(
      `--capacity measures each step for --duration seconds, at least ${String(CAPACITY_MIN_SECONDS)}; got "${values.duration}"`,
    );
  return { rates, capacityTargetMs, duration };
}

/** A whole number of `what` from `min` (to `max`), written in digits. */
function count(value: string, flag: string, what: string, min: number, max?: number): number {
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (parsed >= min && parsed <= (max ?? Number.MAX_SAFE_INTEGER)) return parsed;
  const range = max === undefined ? `${String(min)} or more` : `${String(min)} to ${String(max)}`;
  throw new Error(`${flag} takes a number of ${what} (${range}); got "${value}"`);
}
