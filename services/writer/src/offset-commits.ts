import type { EachBatchPayload } from 'kafkajs';

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
  /** Commits what is answered now and waits for it: before a stop, or as a rebalance starts. */
  flush(): Promise<void>;
}

/**
 * Commits answered offsets at most once per `intervalMs`, all partitions in one request, one
 * request at a time, and only offsets whose replies were sent. A commit per batch cost the broker
 * about 90 of its 390 requests per 1,000 creates (`docs/performance.md`). What a crash loses is
 * the commit of at most `intervalMs` of answered commands: the next writer answers them again,
 * with the same answers. A commit that fails is reported and not retried: the next one covers it.
 */
export function offsetCommits(
  intervalMs: number,
  failed: (error: unknown, offsets: readonly Answered[]) => void,
): OffsetCommits {
  /** The newest answered offset of each partition, the most recently answered last. */
  const pending = new Map<string, Answered>();
  let timer: NodeJS.Timeout | undefined;
  let committing: Promise<void> = Promise.resolve();

  const commit = async () => {
    clearTimeout(timer);
    timer = undefined;
    const due = [...pending.values()].filter((answered) => answered.current());
    pending.clear();
    const newest = due.at(-1);
    if (newest === undefined) return;
    const partitionsByTopic = new Map<string, { partition: number; offset: string }[]>();
    for (const { topic, partition, offset } of due) {
      const partitions = partitionsByTopic.get(topic) ?? [];
      partitions.push({ partition, offset });
      partitionsByTopic.set(topic, partitions);
    }
    try {
      await newest.payload.commitOffsetsIfNecessary({
        topics: [...partitionsByTopic].map(([topic, partitions]) => ({ topic, partitions })),
      });
    } catch (error) {
      failed(error, due);
    }
  };
  const flush = () => {
    committing = committing.then(commit);
    return committing;
  };

  return {
    answered(answered) {
      const key = `${answered.topic}\u0000${String(answered.partition)}`;
      pending.delete(key);
      pending.set(key, answered);
      timer ??= setTimeout(() => void flush(), intervalMs);
    },
    flush,
  };
}
