import type { Logger } from '#shared/logger.ts';
import type { StoreReach } from '../store/store-reach.ts';

/** How often the writer looks at its store's silence, and while away, probes the store. */
const CHECK_EVERY_MS = 1_000;
/**
 * Silence, or refusals of every insert, after which the writer says it is not ready: longer than
 * a round trip to a slow store (the gray-fault runs: 2 s with 1 s added each way).
 */
const SILENT_MS = 5_000;
/**
 * Silence after which the writer gives its partitions up if the others store meanwhile: longer
 * than any operation may wait on a connection (the store client's 3 s socket timeout, and a retry), so a store
 * that is merely slow has answered, or failed the operation, before; within the 10 s in which the
 * others should take a cut writer's partitions over.
 * @internal Exported because its unit test moves its clock past it.
 */
export const LEAVE_AFTER_SILENT_MS = 9_000;
/** Peers' commits are read from this much silence on, to see whether they store meanwhile. */
const WATCH_PEERS_AFTER_MS = 1_000;
/**
 * Checks during the silence that found a partition of another writer committed further. Under a
 * closed-loop load whose clients wait on the cut writer's partitions, the others commit in bursts
 * a reply timeout apart, not every second.
 */
const PEER_PROGRESS_CHECKS = 2;

export interface AwayFromStoreDeps {
  reach: StoreReach;
  /** The group's committed offset of each partition of the command topic. */
  committed(): Promise<Map<number, string>>;
  /** The command partitions this writer owns now. */
  owned(): readonly number[];
  /** Leaves the group, dropping the work in hand. */
  leave(): Promise<void>;
  /** Joins the group again. */
  rejoin(): Promise<void>;
  logger: Logger;
}

export interface AwayFromStore {
  /** Why the writer is not ready on the store's account, or undefined. */
  notReadyReason(): string | undefined;
  stop(): void;
}

/** Why a member is not ready on the store's account: it refuses or has not answered for long. */
function storeNotReadyReason(reach: StoreReach): string | undefined {
  const refusal = reach.refusal();
  if (refusal !== undefined && refusal.forMs >= SILENT_MS)
    return `the store refuses writes: ${refusal.message}`;
  const silentMs = reach.silentForMs();
  return silentMs >= SILENT_MS
    ? `the store has not answered for ${String(Math.round(silentMs / 1_000))} s`
    : undefined;
}

/** Whether another writer's partition was committed further since the last look. */
function peerCommits({ committed, owned }: Pick<AwayFromStoreDeps, 'committed' | 'owned'>) {
  let last: Map<number, string> | undefined;
  return {
    async advanced(): Promise<boolean> {
      const now = await committed();
      const before = last;
      last = now;
      if (before === undefined) return false;
      const mine = new Set(owned());
      return [...now].some(
        ([partition, offset]) =>
          !mine.has(partition) && BigInt(offset) > BigInt(before.get(partition) ?? '-1'),
      );
    },
    forget(): void {
      last = undefined;
    },
  };
}

/**
 * A writer whose own path to the store is cut, while the others store, gives its partitions up:
 * kept, every create on them would wait for the path to heal and answer 504 meanwhile. It tells
 * "only I am cut" from "the store is down" by the group's commits: when its operations have had
 * no answer for LEAVE_AFTER_SILENT_MS, and other writers' partitions were committed further in
 * PEER_PROGRESS_CHECKS checks meanwhile, the store answers them and not this writer. When nobody
 * commits (the store is down for all, or there is no load) it stays, so an outage costs no
 * rebalance. Away, it probes the store every CHECK_EVERY_MS and rejoins at the first answer.
 */
export function awayFromStore(deps: AwayFromStoreDeps): AwayFromStore {
  const { reach, logger } = deps;
  let state: 'member' | 'leaving' | 'away' | 'rejoining' = 'member';
  const peers = peerCommits(deps);
  let progressed = 0;
  let stopped = false;

  const whileMember = async () => {
    const silentMs = reach.silentForMs();
    if (silentMs < WATCH_PEERS_AFTER_MS) {
      peers.forget();
      progressed = 0;
      return;
    }
    if (await peers.advanced()) progressed++;
    if (silentMs < LEAVE_AFTER_SILENT_MS || progressed < PEER_PROGRESS_CHECKS || stopped) return;
    state = 'leaving';
    logger.warn(
      { silentMs, partitions: deps.owned() },
      'the store does not answer this writer while the others store: giving up its partitions',
    );
    try {
      await deps.leave();
    } finally {
      state = 'away';
    }
  };

  const whileAway = async () => {
    if (!(await reach.probe()) || stopped) return;
    state = 'rejoining';
    logger.info('the store answers this writer again: taking partitions again');
    try {
      await deps.rejoin();
      state = 'member';
      peers.forget();
      progressed = 0;
    } catch (error) {
      state = 'away';
      throw error;
    }
  };

  let checking = false;
  const timer = setInterval(() => {
    if (checking || stopped) return;
    checking = true;
    const check = state === 'away' ? whileAway() : state === 'member' ? whileMember() : undefined;
    void check
      ?.catch((error: unknown) => {
        logger.warn({ err: error }, 'checking whether the store answers this writer failed');
      })
      .finally(() => {
        checking = false;
      });
    if (check === undefined) checking = false;
  }, CHECK_EVERY_MS);
  timer.unref();

  return {
    notReadyReason() {
      if (state === 'leaving' || state === 'away')
        return 'the store does not answer this writer while the others store: its partitions are given up until it does';
      if (state === 'rejoining') return 'the store answers again: rejoining the group';
      return storeNotReadyReason(reach);
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
