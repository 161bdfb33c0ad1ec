import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import Type from 'typebox';
import type { Logger } from '../logger.ts';

/** Variables every HTTP port of the services reads: what one connection may hold, and how many. */
export const httpLimitSettings = {
  MAX_CONNECTIONS: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'Open connections per HTTP port beyond which new ones are closed at once; derived from the descriptor limit and the heap limit when unset',
    }),
  ),
  HEADERS_TIMEOUT_MS: Type.Integer({
    default: 3_000,
    minimum: 1,
    description: 'How long a new connection may take to send a complete request head before 408',
  }),
  KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    default: 5_000,
    minimum: 1,
    description: 'How long a connection may stay idle between requests before it is closed',
  }),
};

/** How much of an HTTP port one stranger can hold, and for how long. */
export interface HttpLimits {
  /** Open connections beyond which new ones are closed as soon as they are accepted. */
  maxConnections: number;
  /** A request head not complete this long after it began is answered 408. */
  headersTimeoutMs: number;
  /** A connection idle this long between requests is closed. */
  keepAliveTimeoutMs: number;
}

/**
 * Node's `http.createServer` options for `limits`, with `requestTimeoutMs` for a whole request.
 * Node checks its connections against these only if they are given at creation, every
 * `connectionsCheckingInterval` (30 s by default), and wants the head's timeout within the
 * request's. It counts the head's from a connection's first byte or, before one, from its accept:
 * a socket that sends nothing is closed this soon, not after the whole request's time. An idle
 * keep-alive connection is closed about a second after `keepAliveTimeout` (Node's buffer for
 * clients racing it).
 */
export function nodeServerTimeouts(
  limits: Pick<HttpLimits, 'headersTimeoutMs' | 'keepAliveTimeoutMs'>,
  requestTimeoutMs: number,
) {
  const headersTimeout = Math.min(limits.headersTimeoutMs, requestTimeoutMs);
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeout / 4)),
  };
}

/** What the process has, read once at start-up; tests pass their own. */
export interface ProcessBudget {
  descriptorLimit: number | undefined;
  heapLimitBytes: number;
}

/** What the cap was derived from, for the start-up log line and the configuration reference. */
export interface ConnectionCap extends ProcessBudget {
  maxConnections: number;
  /** `MAX_CONNECTIONS`, or the budget that bounds the derived cap. */
  from: 'MAX_CONNECTIONS' | 'descriptors' | 'memory';
}

/** A connection's request head, at most Node's 16 KiB, beside its parser, socket and request objects. */
const CONNECTION_OVERHEAD_BYTES = 32 * 1024;
/** When the descriptor limit cannot be read (not Linux, no shell): Node's own default of none is worse. */
const UNKNOWN_LIMIT_CAP = 4_096;

/**
 * The connection cap: `MAX_CONNECTIONS` when set, otherwise the lower of two budgets.
 * Descriptors: the limit less a reserve for Kafka, the store's pool, metrics and the process
 * itself (a tenth of the limit, at least 256, at most half). Memory: half the heap limit divided
 * by what one connection can make the process hold (a whole body and head).
 */
export function connectionCap(
  configured: number | undefined,
  bodyLimitBytes: number,
  budget: ProcessBudget = processBudget(),
): ConnectionCap {
  const { descriptorLimit, heapLimitBytes } = budget;
  if (configured !== undefined)
    return { maxConnections: configured, from: 'MAX_CONNECTIONS', ...budget };
  const byMemory = Math.floor(heapLimitBytes / 2 / (bodyLimitBytes + CONNECTION_OVERHEAD_BYTES));
  const byDescriptors =
    descriptorLimit === undefined
      ? UNKNOWN_LIMIT_CAP
      : descriptorLimit - reserveOf(descriptorLimit);
  return byMemory < byDescriptors
    ? { maxConnections: Math.max(1, byMemory), from: 'memory', ...budget }
    : { maxConnections: Math.max(1, byDescriptors), from: 'descriptors', ...budget };
}

function reserveOf(descriptorLimit: number): number {
  return Math.min(Math.ceil(descriptorLimit / 2), Math.max(256, Math.ceil(descriptorLimit / 10)));
}

function processBudget(): ProcessBudget {
  return {
    descriptorLimit: descriptorLimit(),
    heapLimitBytes: getHeapStatistics().heap_size_limit,
  };
}

/**
 * The process's own limit on open descriptors, as it runs (Node raises the soft limit to the hard
 * one at start): Linux's /proc, elsewhere what a shell it starts inherits.
 * @internal Exported because its unit test compares it with the limit the process runs under.
 */
export function descriptorLimit(): number | undefined {
  try {
    return openFilesLimitOf(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    try {
      return limitOf(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
    } catch {
      return undefined;
    }
  }
}

/**
 * The soft limit of the `Max open files` line of /proc/<pid>/limits.
 * @internal Exported because its unit test parses /proc lines of other limits than this process has.
 */
export function openFilesLimitOf(limits: string): number | undefined {
  const line = limits.split('\n').find((each) => each.startsWith('Max open files'));
  return limitOf(line?.slice('Max open files'.length).trim().split(/\s+/)[0]);
}

function limitOf(text: string | undefined): number | undefined {
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Descriptors that must stay free for Kafka, the store and the process when MAX_CONNECTIONS is set. */
const MIN_RESERVE = 64;

/** The start-up line that says what the cap is and where it came from; a warning when it leaves no room. */
export function logConnectionCap(cap: ConnectionCap, logger: Logger): void {
  const { maxConnections, descriptorLimit, from } = cap;
  if (
    from === 'MAX_CONNECTIONS' &&
    descriptorLimit !== undefined &&
    maxConnections > descriptorLimit - MIN_RESERVE
  )
    logger.warn(
      cap,
      `MAX_CONNECTIONS leaves fewer than ${String(MIN_RESERVE)} of the descriptor limit for Kafka, the store and the process: a flood can exhaust them`,
    );
  else logger.info(cap, 'HTTP connections capped');
}
