import { waitFor, type StoreDistance } from '../store/store-distance.ts';
import type { Lane } from './lane-state.ts';

/**
 * What all lanes may hold queued before a partition that adds to it is paused until its lane
 * catches up, counted as the heap its commands take (lane-queue.ts).
 */
export const MAX_QUEUED_BYTES = 16 << 20;
/**
 * How long a batch holds kafkajs's fetch loop at most, waiting to be answered. Under this, the
 * loop runs as kafkajs runs it (fetch, answer everything fetched, fetch again), which is what
 * batches commands best; past it, the batch goes on alone and the other partitions are fetched.
 */
export const MAX_FETCH_HOLD_MS = 25;
/**
 * How long a lane that answered more than one command (it is under load) waits before it takes
 * more and lets kafkajs fetch again, so that the next batch carries more commands: fewer fetches,
 * inserts, sends and commits per command. A lone command (no load) never waits.
 */
export const BUSY_LINGER_MS = 2;
/**
 * How the writer lingers with the arrival rate of commands over every lane: an answered batch holds
 * kafkajs's fetch loop as long as `wanted` more commands take to arrive at the rate of about the
 * last `windowMs`, when that is at most the writer's ANSWER_LINGER_MAX_MS, and not at all when they
 * would take longer. At a steady few hundred creates a second the next fetch then brings several
 * commands for one insert, reply send and commit instead of one each; when idle, or at a low rate,
 * a command never waits.
 */
export const ARRIVAL_LINGER = { wanted: 4, windowMs: 100 };
/** ANSWER_LINGER_MAX_MS by default: the writer lingers from about 500 creates a second over all. */
export const ANSWER_LINGER_MAX_MS = 8;
/**
 * How long a lane's newest work may be answered alone before the lane takes the next commands
 * beside it. Quicker work (the store and Kafka answering in milliseconds) keeps the lane serial,
 * which batches best; slower work (a store 2 s away) would otherwise make every command wait for
 * the round trip before its own: with a duplicate's read behind its insert, over the 5 s a
 * gateway waits.
 */
const OVERLAP_AFTER_MS = 100;
/** The most works a lane answers at once. */
const MAX_ANSWERING = 16;
/**
 * The most works a lane holds, answering or answered and waiting for an earlier one to be, for
 * their commit: a slow work (a duplicate read back, a stalled connection) holds the lane only once
 * this many finished behind it.
 */
const MAX_WORKS = 64;

/** How long the lane waits before it may take more: Infinity while it must not. */
export function startsIn(
  lane: Pick<Lane, 'flights' | 'lingerUntil'>,
  now: number,
  storeDistance: StoreDistance,
): number {
  const { flights } = lane;
  if (flights.length >= MAX_WORKS || flights.some(({ state }) => state === 'failed'))
    return Infinity;
  const answering = flights.filter(({ state }) => state === 'answering');
  if (answering.length >= MAX_ANSWERING) return Infinity;
  const newest = answering.at(-1);
  if (newest === undefined) return lane.lingerUntil - now;
  return newest.startedAt + waitFor(storeDistance, OVERLAP_AFTER_MS) - now;
}
