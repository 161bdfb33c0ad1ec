import type { EachBatchPayload } from 'kafkajs';
import { groupByTopic, partitionKey } from '#shared/kafka/messages.ts';

/** The next offset of a partition once a batch of it is answered. */
export interface Answered {
  topic: string;
  partition: number;
  offset: string;
  /** The batch's: commits go through the newest payload (after a kafkajs restart, older ones are dead). */
  payload: EachBatchPayload;
  /** False once the partition was given away: its next owner commits it. */
  current(): boolean;
}

export interface OffsetCommits {
  /** Commits the offset within the interval, in one request with every other answered meanwhile. */
  answered(answered: Answered): void;
  /** Commits what is answered now and waits for it: as a rebalance starts. */
  flush(): Promise<void>;
  /** Commits what is answered, once, and then no more: before the consumer disconnects. */
  close(): Promise<void>;
}

interface Pending {
  answered: Answered;
  /** When it was answered, among the others: the newest payload is the last answered one's. */
  order: number;
}

/**
 * Commits answered offsets at most once per `intervalMs`, all partitions in one request, one
 * request at a time, and only offsets whose replies were sent. A commit per batch made commits a
 * good part of the broker's requests (`docs/history/2026-11-25-against-nestjs.md`). A commit that fails is
 * reported and its offsets go out again with the next one, unless their partition was answered
 * further or given away meanwhile. What a crash loses is the commit of what was answered since
 * the last one: the next writer answers those commands again, with the same answers.
 */
export function offsetCommits(
  intervalMs: number,
  failed: (error: unknown, offsets: readonly Answered[]) => void,
): OffsetCommits {
  /** The newest answered offset of each partition. */
  const pending = new Map<string, Pending>();
  let order = 0;
  let timer: NodeJS.Timeout | undefined;
  let committing: Promise<void> = Promise.resolve();
  let closed = false;

  const keyOf = ({ topic, partition }: Answered) => partitionKey(topic, partition);
  const later = () => {
    if (!closed) timer ??= setTimeout(() => void flush(), intervalMs);
  };
  const commit = async () => {
    clearTimeout(timer);
    timer = undefined;
    const due = [...pending.values()].filter(({ answered }) => answered.current());
    pending.clear();
    const newest = due.reduce<Pending | undefined>(
      (last, each) => (last === undefined || each.order > last.order ? each : last),
      undefined,
    );
    if (newest === undefined) return;
    const byTopic = groupByTopic(
      due.map(
        ({ answered: { topic, partition, offset } }) => [topic, { partition, offset }] as const,
      ),
    );
    try {
      await newest.answered.payload.commitOffsetsIfNecessary({
        topics: byTopic.map(({ topic, items }) => ({ topic, partitions: items })),
      });
    } catch (error) {
      failed(
        error,
        due.map(({ answered }) => answered),
      );
      for (const entry of due) {
        const key = keyOf(entry.answered);
        if (!pending.has(key)) pending.set(key, entry);
      }
      later();
    }
  };
  const flush = () => {
    committing = committing.then(commit);
    return committing;
  };

  return {
    answered(answered) {
      pending.set(keyOf(answered), { answered, order: order++ });
      later();
    },
    flush,
    async close() {
      await flush();
      closed = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
