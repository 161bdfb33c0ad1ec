import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { getuid } from 'node:process';
import type { Hit } from '#local/load/vegeta-results.ts';
import { prepareAttack } from '#local/load/vegeta.ts';
import { findOnPath } from '#local/provision/tools.ts';
import { sampleValue } from '../observe/scrape.ts';
import { bodyOf, type Answer, type Content } from '../observe/traffic.ts';

/** Without a core of its own, the generator's nice value where it may take one (root). */
const GENERATOR_NICE = -10;
/** Connections to the gateway at most, and never more than half its cap. */
const MOST_CONNECTIONS = 512;
/** Each load's ids start this far apart: no two loads send the same id. */
const IDS_PER_LOAD = 100_000_000n;
const FIRST_ID = 9_007_199_254_740_993n;

/** How the load generator shares the machine with the services. */
export interface CoreSplit {
  /** vegeta's CPUs (`taskset -c`), when it has its own; else its nice value, when root. */
  generatorCpus: string | undefined;
  priority: number | undefined;
  description: string;
}

/**
 * Gives the load generator a core of its own, where there are two or more and `taskset` is
 * installed: this process, and so every process the run starts (Kafka, the store, the services),
 * is pinned to the other cores, and vegeta to the last. A generator sharing the cores with what
 * it loads takes more of them the more it offers, so 4T would be measured on less CPU than T
 * was; on a core of its own it keeps its schedule and the services have the same CPU throughout.
 * Otherwise vegeta runs at nice -10 when root (the services at 0), and the run says which.
 * Call it before anything is started.
 */
export function splitCores(): CoreSplit {
  const cores = availableParallelism();
  if (cores >= 2 && findOnPath('taskset') !== null) {
    const services = cores === 2 ? '0' : `0-${String(cores - 2)}`;
    const generator = String(cores - 1);
    execFileSync('taskset', ['-a', '-cp', services, String(process.pid)], { stdio: 'ignore' });
    return {
      generatorCpus: generator,
      priority: undefined,
      description: `vegeta on CPU ${generator} alone, Kafka, the store and the services on CPU ${services} (taskset)`,
    };
  }
  const priority = getuid?.() === 0 ? GENERATOR_NICE : undefined;
  return {
    generatorCpus: undefined,
    priority,
    description:
      priority === undefined
        ? 'vegeta on the same cores as the services, at their priority (it may fall behind schedule, which the run reports)'
        : `vegeta on the same cores as the services, at nice ${String(priority)} (the services at 0)`,
  };
}

/** At most half the gateway's connection cap (`plant_store_http_max_connections`), so no refusal is the cap's. */
export async function generatorConnections(url: string): Promise<{ max: number; cap: number }> {
  const metrics = await (await fetch(`${url}/metrics`)).text();
  const cap = sampleValue(metrics, 'plant_store_http_max_connections');
  if (!Number.isInteger(cap) || cap < 2)
    throw new Error(`${url}/metrics has no plant_store_http_max_connections`);
  return { max: Math.min(MOST_CONNECTIONS, Math.floor(cap / 2)), cap };
}

/** A load whose results are read once every load is over. */
export interface PendingLoad {
  run(): Promise<void>;
  answers(): Promise<Answer[]>;
}

/** vegeta's loads on one gateway, each on ids of its own, their hits read as the chaos run's answers. */
export function openLoad(options: {
  vegeta: string;
  url: string;
  token: string;
  dir: string;
  split: CoreSplit;
  maxConnections: number;
}) {
  let loads = 0n;
  const prepare = async (load: {
    rate: number;
    seconds: number;
    workers?: number;
  }): Promise<PendingLoad> => {
    const attack = await prepareAttack({
      vegeta: options.vegeta,
      urls: [options.url],
      token: options.token,
      ...load,
      firstId: FIRST_ID + loads++ * IDS_PER_LOAD,
      bodyOf: (id) => bodyOf(contentOf(id)),
      dir: options.dir,
      maxConnections: options.maxConnections,
      bodies: true,
      tagged: true,
      ...(options.split.generatorCpus === undefined ? {} : { cpus: options.split.generatorCpus }),
      ...(options.split.priority === undefined ? {} : { priority: options.split.priority }),
    });
    return {
      run: () => attack.run(),
      answers: async () =>
        (await attack.read()).map((hit) => {
          if (hit.id === undefined)
            throw new Error(`vegeta result ${String(hit.seq)} has no tagged id`);
          return answerOf(hit, contentOf(hit.id), options.url);
        }),
    };
  };
  return {
    /** `workers` senders, each sending its next create once the last is answered. */
    closedLoop: (workers: number, seconds: number) => prepare({ rate: 0, seconds, workers }),
    /** `rate` creates a second on schedule, however they are answered. */
    onSchedule: (rate: number, seconds: number) => prepare({ rate, seconds }),
  };
}

function contentOf(id: bigint): Content {
  return { id, name: `overload-${String(id)}` };
}

/** A vegeta hit as the verdict reads answers: status, error code, the 200's plant, Retry-After. */
export function answerOf(hit: Hit, content: Content, url: string): Answer {
  const startedAt = Number(hit.sentNs / 1_000_000n);
  const body = parsed(hit.body);
  return {
    content,
    gateway: 0,
    url,
    phase: 'load',
    startedAt,
    endedAt: startedAt + hit.latencyMs,
    status: hit.code,
    ...(hit.code === 200 && body !== undefined ? { plant: body } : {}),
    ...(typeof body?.error === 'number' ? { error: body.error } : {}),
    ...(hit.retryAfter === undefined ? {} : { retryAfter: hit.retryAfter }),
    ...(hit.code === 0 ? { failure: hit.error } : {}),
  };
}

function parsed(body: string | undefined): Record<string, unknown> | undefined {
  if (body === undefined) return undefined;
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
