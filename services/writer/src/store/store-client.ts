import {
  MongoClient,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { failOn } from '#shared/config.ts';
import { untrustedCertificate } from '#shared/tls/errors.ts';
import type { Logger } from '#shared/logger.ts';
import { failStalledWrites } from './stalled-writes.ts';

/**
 * How long an operation may wait on a connection without a byte from the store before the
 * connection is closed and the operation fails, to be retried on another (the driver retries a
 * write or a read once itself): without it (the driver's default is no limit), an insert on a
 * connection whose path stalled waits forever, and holds its partitions. Above a round trip to a
 * slow store (2 s with 1 s added each way), and short enough that an insert retried after it is
 * still answered within the 5 s a gateway waits (with a longer one, every command on a stalled
 * connection was answered 504). A command still being written when it fires is failed by `stalled-writes.ts`:
 * the driver would wait for it forever.
 * @internal Exported because the stalled-command test bounds how long an answer may take by it.
 */
export const STORE_SOCKET_TIMEOUT_MS = 3_000;
/**
 * Connections the pool keeps open while idle, and how many it opens at once when it grows. A
 * store that turns slow makes each operation hold its connection for a whole round trip, so the
 * pool must grow just then; the driver opens 2 at a time by default, each after a round trip of
 * its own: with the store far away, inserts waited for connections several round trips long
 * (docs/history/2026-12-03-figures-behind-the-comments.md).
 */
const MIN_POOL_SIZE = 16;
const MAX_CONNECTING = 8;
/** How often the driver checks the server (its default is 10 s). */
const HEARTBEAT_MS = 2_000;
/**
 * A check, like a connection, gives up after this long (its default is 30 s): a check on a path
 * that stalled marks the store unknown and fails the operations in flight, so it must end as soon
 * as an operation would, and above a slow store's round trip.
 */
const CONNECT_TIMEOUT_MS = 3_000;
/**
 * Long enough for any check that ends (one interval and a connect that times out) with 2 s to
 * spare: every second past it is a second in which no operation can select the store. When the
 * half-open paths of the gray runs healed, one writer's check hung, and its batches failed
 * ("connection N closed") until the watch reconnected it: seconds of 504s with a larger margin.
 */
const CHECK_STALLED_MS = HEARTBEAT_MS + CONNECT_TIMEOUT_MS + 2_000;
const WATCH_EVERY_MS = 1_000;
const RECONNECT_RETRY_MS = 1_000;
/** MongoDB's error codes for refused credentials, and for a user not allowed a command. */
const AUTHENTICATION_FAILED = 18;
const UNAUTHORIZED = 13;

export interface StoreClient {
  readonly client: MongoClient;
  /** Stops watching and closes the client. */
  close(): Promise<void>;
}

/**
 * The heartbeat events and the reconnect of a MongoClient: what the watch uses of it.
 * @internal Exported because what the unit test of watchMonitor stands in for.
 */
export type WatchedClient = Pick<MongoClient, 'on' | 'close' | 'connect'>;

/**
 * The writer's MongoDB client, connected, with a watch on its server monitor. After FerretDB
 * restarted under load, the mongodb 7.9 driver's monitor sometimes started a check that never
 * ended, and so never checked again: every insert of that writer failed server selection with
 * "connection N closed" for minutes while the store was up, and the writer's partitions went
 * unanswered (`npm run chaos`, and a script that restarted the store under several clients:
 * docs/history/2026-12-03-figures-behind-the-comments.md). A check that has not ended after CHECK_STALLED_MS is
 * taken for that: the client is closed and connected again, a new monitor with it. A store that is
 * down does not look like this: its checks fail, each within CONNECT_TIMEOUT_MS.
 */
export async function connectStore(
  uri: string,
  logger: Logger,
  options: { database: string; tlsCAFile?: string | undefined },
): Promise<StoreClient> {
  const { database, tlsCAFile } = options;
  const client = new MongoClient(uri, {
    ...(tlsCAFile === undefined ? {} : { tls: true, tlsCAFile }),
    useBigInt64: true,
    // A store that is down fails an insert within 5 s (the driver waits 30 s by default); the
    // batch is retried every 0.5 s meanwhile, rather than failing after half a minute.
    serverSelectionTimeoutMS: 5_000,
    heartbeatFrequencyMS: HEARTBEAT_MS,
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
    socketTimeoutMS: STORE_SOCKET_TIMEOUT_MS,
    minPoolSize: MIN_POOL_SIZE,
    maxConnecting: MAX_CONNECTING,
  });
  const stopFailingStalledWrites = failStalledWrites(client);
  try {
    await client.connect();
    // Signed in and allowed in: a store that refuses the settings stops the writer at start-up,
    // rather than failing every batch, unanswered, for as long as it runs.
    await client.db(database).command({ listCollections: 1, nameOnly: true });
  } catch (error) {
    stopFailingStalledWrites();
    await client.close();
    const problem = storeRefusal(error, database);
    if (problem !== undefined) failOn([problem]);
    throw error;
  }
  const stopWatching = watchMonitor(client, logger);
  return {
    client,
    async close() {
      stopWatching();
      stopFailingStalledWrites();
      await client.close();
    },
  };
}

/**
 * Reconnects `client` whenever a check of its monitor has stalled; returns the stop.
 * @internal Exported because its unit test stalls a monitor, which a live store does not do on demand.
 */
export function watchMonitor(
  client: WatchedClient,
  logger: Logger,
  stalledAfterMs = CHECK_STALLED_MS,
): () => void {
  let checkStartedAt: number | undefined;
  let reconnecting = false;
  client.on('serverHeartbeatStarted', () => {
    checkStartedAt = Date.now();
  });
  const ended = () => {
    checkStartedAt = undefined;
  };
  client.on('serverHeartbeatSucceeded', ended);
  client.on('serverHeartbeatFailed', ended);

  let stopped = false;
  // Until it connects: a closed client refuses every operation (MongoNotConnectedError).
  const reconnect = async (stalledMs: number) => {
    reconnecting = true;
    logger.warn({ stalledMs }, 'the store client stopped checking the server: reconnecting it');
    try {
      await client.close();
    } catch (error) {
      logger.warn({ err: error }, 'closing the stalled store client failed: connecting anyway');
    }
    checkStartedAt = undefined;
    while (!stopped) {
      try {
        await client.connect();
        logger.info('the store client reconnected');
        break;
      } catch (error) {
        logger.warn({ err: error }, 'reconnecting the store client failed: trying again');
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_RETRY_MS));
      }
    }
    reconnecting = false;
  };
  const timer = setInterval(() => {
    if (reconnecting || checkStartedAt === undefined) return;
    const stalledMs = Date.now() - checkStartedAt;
    if (stalledMs > stalledAfterMs) void reconnect(stalledMs);
  }, WATCH_EVERY_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * What is wrong with the settings when `error` says the store refused them.
 * @internal Exported because its unit test feeds it each refusal the driver raises, which a test store cannot all produce.
 */
export function storeRefusal(error: unknown, database: string): string | undefined {
  const untrusted = untrustedCertificate(error);
  if (untrusted !== undefined)
    return `the store's certificate is not trusted: check MONGODB_TLS_CA_FILE (${untrusted})`;
  if (!(error instanceof MongoServerError)) return undefined;
  if (error.code === AUTHENTICATION_FAILED)
    return `the store refused the credentials in MONGODB_URI (${error.message})`;
  if (error.code === UNAUTHORIZED)
    return `the store refused ${database}: check the user and password in MONGODB_URI, and MONGODB_DATABASE (${error.message})`;
  return undefined;
}

/**
 * Whether connecting may pass if tried again: a store not up yet, or not reachable yet, fails
 * server selection or the connection; anything else it answered (a refusal) does not change.
 */
export function storeErrorIsRetriable(error: unknown): boolean {
  return error instanceof MongoServerSelectionError || error instanceof MongoNetworkError;
}
