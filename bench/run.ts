// `npm run bench`: ceiling, direct, e2e and nestjs side by side on one machine, in one run (or
// --repeat N times, in alternating order), each on fresh ids; writes
// bench/results/<time>.{json,md,svg} and exits 1 when any request failed.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { brokerCount } from '../deploy/local/kafka.ts';
import { startNodeService } from '../deploy/local/node-service.ts';
import { projectRoot, stateRoot } from '../deploy/local/paths.ts';
import { freePort } from '../deploy/local/ports.ts';
import { httpIsReady } from '../deploy/local/readiness.ts';
import { serviceConnections } from '../deploy/local/secure-stack.ts';
import { startServices } from '../deploy/local/services.ts';
import type { ServerProcess } from '../deploy/local/server-process.ts';
import { startLocalStack, type LocalStack } from '../deploy/local/stack.ts';
import { stopOnSignal } from '../deploy/local/stop-on-signal.ts';
import { waitUntilReady } from '../deploy/local/wait-until-ready.ts';
import { LOG_LEVELS } from '../shared/config.ts';
import { toSvg } from './chart.ts';
import { createsAnswered, loadPlants, type LoadResult } from './load.ts';
import { brokerRequests, requestsPerThousand } from './broker-requests.ts';
import { profilesIn } from './cpu-profile.ts';
import { prepareNestjs, startNestjs } from './nestjs-variant.ts';
import { preloadPlants } from './preload.ts';
import {
  rssKiB,
  sampleMachine,
  sampleProcesses,
  toMiB,
  type ProcessUsage,
} from './process-stats.ts';
import { runLabel, toMarkdown, type SoakResult, type VariantResult } from './report.ts';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '64' },
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '15' },
    partitions: { type: 'string', default: '3' },
    sequential: { type: 'string', default: '1000' },
    writers: { type: 'string', default: '1' },
    gateways: { type: 'string', default: '1' },
    variants: { type: 'string', default: 'ceiling,direct,e2e,nestjs' },
    repeat: { type: 'string', default: '1' },
    store: { type: 'string' },
    soak: { type: 'string', default: '0' },
    preload: { type: 'string', default: '0' },
    'log-level': { type: 'string', default: 'warn' },
    'ids-beyond-2-53': { type: 'boolean', default: false },
    secure: { type: 'boolean', default: false },
    brokers: { type: 'string', default: '1' },
    'cpu-prof': { type: 'boolean', default: false },
  },
});
const brokers = brokerCount(values.brokers);
const connections = Number(values.connections);
const duration = Number(values.duration);
const warmup = Number(values.warmup);
const sequential = Number(values.sequential);
const soakSeconds = Number(values.soak);
const preload = Number(values.preload);
const repeat = Number(values.repeat);
const startedAt = new Date().toISOString().replaceAll(':', '-');
const dir = join(stateRoot, 'bench', startedAt);
const logDir = join(dir, 'logs');
const token = `bench-${randomBytes(12).toString('base64url')}`;

const VARIANTS = ['ceiling', 'direct', 'e2e', 'nestjs'] as const;
type Variant = (typeof VARIANTS)[number];
const isVariant = (name: string): name is Variant => (VARIANTS as readonly string[]).includes(name);
const variants = values.variants.split(',').map((name) => name.trim());
const unknownVariant = variants.find((name) => !isVariant(name));
if (unknownVariant !== undefined) {
  throw new Error(`--variants takes ${VARIANTS.join(', ')}; got "${unknownVariant}"`);
}
/**
 * Where the ids start: FerretDB reads an id beyond ±2^53 differently from one within (the writer
 * reads a duplicate by id and name for that), and Snowflake-style ids are all beyond.
 */
const ID_BASE = values['ids-beyond-2-53'] ? 1n << 60n : 0n;
const ID_RANGES: Record<Variant, bigint> = {
  ceiling: ID_BASE + (1n << 40n),
  direct: ID_BASE + (2n << 40n),
  e2e: ID_BASE + (3n << 40n),
  nestjs: ID_BASE + (5n << 40n),
};
/** Each repetition's ids, apart from the others' within its variant's range. */
const roundIds = (round: number) => BigInt(round - 1) << 35n;
/** Plants written straight into the store by --preload, and retried during the e2e run after it. */
const PRELOADED = ID_BASE + (4n << 40n);
/** Clients retrying preloaded plants while the e2e load runs. */
const RETRY_CONNECTIONS = 4;

const nestjsOptions = (stack: LocalStack) => ({
  brokers: stack.kafka.brokers,
  partitions: Number(values.partitions),
  logDir,
});

interface Started {
  services: ServerProcess[];
  urls: string[];
}

async function startVariant(
  variant: Variant,
  stack: LocalStack,
  extraEnv: NodeJS.ProcessEnv,
): Promise<Started> {
  const env = {
    ...process.env,
    ...extraEnv,
    AUTH_TOKENS: token,
    MONGODB_URI: stack.mongoUri,
    KAFKA_PARTITIONS: values.partitions,
    LOG_LEVEL: values['log-level'],
  };
  if (variant === 'nestjs') {
    return startNestjs(nestjsOptions(stack), env, {
      writers: Number(values.writers),
      gateways: Number(values.gateways),
    });
  }
  if (variant !== 'e2e') {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = startNodeService({
      name: variant,
      script: 'bench/servers/baseline.ts',
      args: [variant],
      env: { ...env, PORT: String(port) },
      logDir,
    });
    await waitUntilReady(server, () => httpIsReady(url), 30_000);
    return { services: [server], urls: [url] };
  }
  const { writers, gateways, urls } = await startServices({
    env,
    connections: await serviceConnections(stack),
    logDir,
    writers: Number(values.writers),
    gateways: Number(values.gateways),
  });
  return { services: [...gateways, ...writers], urls };
}

/** Clients that retry plants already stored, beside the measured load. */
interface Retrying {
  label: string;
  /** The stored plants the retries pick from at random. */
  retryOf: { first: bigint; count: number };
  /** Keeps the fresh ids of each retrying run apart. */
  run: bigint;
  /** Fresh creates per second over all connections; as fast as answered when absent. */
  overallRate?: number;
}

/**
 * One variant under load. With `retrying`, clients that send retries of stored plants run beside
 * the measured load, on fresh ids of their own range for the load itself.
 */
async function measure(
  variant: Variant,
  stack: LocalStack,
  round: number,
  retrying?: Retrying,
): Promise<VariantResult> {
  // Each Node process writes its profile when it exits (`node --cpu-prof`).
  const profileDir = join(dir, 'profiles', `${variant}-${String(round)}`);
  const profiling = values['cpu-prof'] && retrying === undefined;
  const { services, urls } = await startVariant(
    variant,
    stack,
    profiling
      ? {
          NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${profileDir}`,
        }
      : {},
  );
  let result: VariantResult;
  try {
    const firstId =
      ID_RANGES[variant] +
      roundIds(round) +
      (retrying === undefined ? 0n : (4n + retrying.run) << 32n);
    // JIT compilers (V8 in the services, C2 in the broker) and connection pools warm up first.
    if (warmup > 0) {
      await loadPlants({
        urls,
        token,
        connections,
        duration: warmup,
        firstId: firstId + (3n << 32n),
      });
    }
    const { backend } = stack.mongo;
    const store = variant === 'ceiling' ? [] : [stack.mongo.process];
    const kafka = variant === 'e2e' || variant === 'nestjs' ? [...stack.kafka.nodes.values()] : [];
    const brokerPids = kafka.map(({ pid }) => pid);
    // Read before the CPU sampling starts: attaching starts the broker's JMX agent.
    const requestsBefore = brokerPids.length === 0 ? null : await brokerRequests(brokerPids);
    const sampler = sampleProcesses([
      ...[...services, ...kafka, ...store].map(({ name, pid }) => ({ name, pid })),
      ...(backend === undefined || variant === 'ceiling'
        ? []
        : [{ name: backend.name, pid: backend.pid, withChildren: true }]),
    ]);
    const machineSampler = sampleMachine();
    const [load, retries] = await Promise.all([
      loadPlants({
        urls,
        token,
        connections,
        duration,
        firstId,
        ...(retrying?.overallRate === undefined ? {} : { overallRate: retrying.overallRate }),
      }),
      retrying === undefined
        ? null
        : loadPlants({
            urls,
            token,
            connections: RETRY_CONNECTIONS,
            duration,
            firstId: PRELOADED,
            retryOf: retrying.retryOf,
          }),
    ]);
    const usage: ProcessUsage[] = sampler.stop();
    const machine = machineSampler.stop();
    const requestsAfter = requestsBefore === null ? null : await brokerRequests(brokerPids);
    const requests =
      requestsBefore === null || requestsAfter === null
        ? undefined
        : requestsPerThousand(requestsBefore, requestsAfter, createsAnswered(load));
    const seq: LoadResult | null =
      variant === 'ceiling' || sequential === 0 || retrying !== undefined
        ? null
        : await loadPlants({
            urls: urls.slice(0, 1),
            token,
            connections: 1,
            amount: sequential,
            firstId: firstId + (1n << 32n),
          });
    const soak =
      variant === 'e2e' && soakSeconds > 0 && retrying === undefined && round === repeat
        ? await soakAt80Percent(urls, services, load, firstId + (2n << 32n))
        : null;
    result = {
      variant: retrying?.label ?? variant,
      round,
      load,
      sequential: seq,
      usage,
      machine,
      soak,
      retries,
      ...(requests === undefined ? {} : { brokerRequestsPerThousand: requests }),
    };
  } finally {
    await Promise.all(services.map((service) => service.stop()));
  }
  if (!profiling) return result;
  const names = new Map(services.map(({ pid, name }) => [pid, name]));
  return { ...result, profiles: profilesIn(profileDir, names) };
}

/** The e2e services under 80 % of their measured peak for --soak seconds: does their RSS grow? */
async function soakAt80Percent(
  urls: readonly string[],
  services: readonly ServerProcess[],
  peak: LoadResult,
  firstId: bigint,
): Promise<SoakResult> {
  const rate = Math.round(peak.requestsPerSecond * 0.8);
  console.log(`soak: ${rate} req/s for ${soakSeconds} s…`);
  const startedAt = Date.now();
  const rssMiB = () => services.map(({ pid }) => toMiB(rssKiB(pid)));
  const samples = [{ second: 0, rssMiB: rssMiB() }];
  const sampler = setInterval(() => {
    samples.push({ second: Math.round((Date.now() - startedAt) / 1000), rssMiB: rssMiB() });
  }, 10_000);
  const load = await loadPlants({
    urls,
    token,
    connections,
    duration: soakSeconds,
    overallRate: rate,
    firstId,
  });
  clearInterval(sampler);
  samples.push({ second: soakSeconds, rssMiB: rssMiB() });
  return {
    seconds: soakSeconds,
    rate,
    load,
    processes: services.map(({ name }) => name),
    samples,
  };
}

async function documentsStored(stack: LocalStack): Promise<number> {
  const client = await new MongoClient(stack.mongoUri).connect();
  try {
    return await client.db('plantstore').collection('plants').countDocuments();
  } finally {
    await client.close();
  }
}

if (values.store !== undefined && values.store !== 'sqlite' && values.store !== 'postgresql') {
  throw new Error(`--store must be sqlite or postgresql, got "${values.store}"`);
}
if (!Number.isInteger(preload) || preload < 0) {
  throw new Error(`--preload takes a number of plants (0 or more); got "${values.preload}"`);
}
if (!Number.isInteger(repeat) || repeat < 1 || repeat > 30) {
  throw new Error(`--repeat takes a number of repetitions (1 to 30); got "${values.repeat}"`);
}
if (variants.includes('nestjs') && (values.secure || values['ids-beyond-2-53'])) {
  throw new Error(
    'the nestjs variant runs without --secure and --ids-beyond-2-53 (its JSON numbers are doubles)',
  );
}
if (!(LOG_LEVELS as readonly string[]).includes(values['log-level'])) {
  throw new Error(`--log-level takes ${LOG_LEVELS.join(', ')}; got "${values['log-level']}"`);
}
console.log(`Starting Kafka and the MongoDB-protocol server in ${dir}…`);
const stack = await startLocalStack({
  dir,
  store: values.store,
  secure: values.secure,
  brokers,
});
// The services die with this process (SIGKILL on exit); the servers are stopped in order.
stopOnSignal('the benchmark', () => stack.stop());
try {
  const results: VariantResult[] = [];
  if (variants.includes('nestjs')) await prepareNestjs(nestjsOptions(stack));
  for (let round = 1; round <= repeat; round++) {
    // Alternating, so that neither order nor the machine's drift over a run favours a variant.
    const order = variants.filter(isVariant);
    if (round % 2 === 0) order.reverse();
    for (const variant of order) {
      const of = repeat > 1 ? ` (${String(round)} of ${String(repeat)})` : '';
      console.log(`${variant}${of}: ${connections} connections for ${duration} s…`);
      results.push(await measure(variant, stack, round));
    }
  }
  const e2e = results.findLast(({ variant }) => variant === 'e2e');
  if (preload > 0 && e2e !== undefined) {
    // The same retries on the store as it is, before the preload: what the store's size costs.
    const small = await documentsStored(stack);
    const ownLabel = `e2e @ ${small} plants, retrying`;
    console.log(`${ownLabel}: ${RETRY_CONNECTIONS} clients retry the e2e run's own plants…`);
    results.push(
      await measure('e2e', stack, repeat, {
        label: ownLabel,
        run: 0n,
        retryOf: { first: ID_RANGES.e2e + roundIds(e2e.round), count: e2e.load.requests },
      }),
    );
    console.log(`preload: writing ${preload} plants straight into the store…`);
    await preloadPlants(stack.mongoUri, PRELOADED, preload);
    // Measured right after the bulk load, autovacuum's first pass over the table ran during the
    // load; a store that grew over days has had it.
    console.log('preload: settling the store (PostgreSQL: VACUUM ANALYZE, CHECKPOINT)…');
    await stack.mongo.settle?.();
    // Not counted: FerretDB reads every document into memory to count them.
    const label = `e2e @ ${preload} more plants, retrying`;
    console.log(`${label}: ${RETRY_CONNECTIONS} clients retry preloaded plants…`);
    const preloaded = { first: PRELOADED, count: preload };
    const saturated = await measure('e2e', stack, repeat, {
      label,
      run: 1n,
      retryOf: preloaded,
    });
    results.push(saturated);
    // Saturated, every answer waits its turn behind the connections ahead of it (a fresh create
    // waited 29–38 ms): a latency is read at an operating point, here half of what the same mix
    // of fresh creates and retries peaked at.
    const overallRate = Math.round(saturated.load.requestsPerSecond / 2);
    const pacedLabel = `e2e @ ${preload} more plants, retrying, ${overallRate} creates/s`;
    console.log(`${pacedLabel}: half that peak, ${RETRY_CONNECTIONS} clients retrying…`);
    results.push(
      await measure('e2e', stack, repeat, {
        label: pacedLabel,
        run: 2n,
        retryOf: preloaded,
        overallRate,
      }),
    );
  }
  const report = {
    startedAt,
    machine: { cores: cpus().length, node: process.version },
    settings: {
      connections,
      duration,
      warmup,
      partitions: Number(values.partitions),
      writers: Number(values.writers),
      gateways: Number(values.gateways),
      sequential,
      repeat,
      preload,
      store: `${stack.mongoServer}${values.secure ? '; Kafka on SASL_SSL with ACLs, the store on TLS' : ''}${brokers === 1 ? '' : `; ${String(brokers)} Kafka brokers, replication factor 3, min.insync.replicas 2`}`,
      logLevel: values['log-level'],
      idsBeyond2To53: values['ids-beyond-2-53'],
    },
    documentsStoredAtEnd: await documentsStored(stack),
    results,
  };
  const markdown = toMarkdown(report);
  const resultsDir = join(projectRoot, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  await writeFile(join(resultsDir, `${startedAt}.json`), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(resultsDir, `${startedAt}.md`), markdown);
  await writeFile(
    join(resultsDir, `${startedAt}.svg`),
    toSvg(
      results.map((result) => ({ ...result, variant: runLabel(result, repeat) })),
      `${connections} connections, ${duration} s, ${stack.mongoServer}`,
    ),
  );
  console.log(`\n${markdown}\nWritten to bench/results/${startedAt}.{json,md,svg}`);
  const failed = results.some(({ load, sequential: seq, soak }) =>
    [load, seq, soak?.load ?? null].some((run) => run !== null && run.non2xx + run.errors > 0),
  );
  process.exitCode = failed ? 1 : 0;
} finally {
  await stack.stop();
}
