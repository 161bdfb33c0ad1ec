import type { Admin, ITopicMetadata, Kafka, KafkaJSAggregateError } from 'kafkajs';
import type { Topics } from '../contracts/kafka.ts';
import { kafkaErrorIsRetriable } from './retriable.ts';
import type { StartUp } from '../start-up.ts';

/**
 * A dead letter is the command as received plus the writer's headers saying why, so it can be
 * larger than the command topic allows: room for commands of up to 8 MiB.
 */
const DLQ_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
const DLQ_CONFIG = [{ name: 'max.message.bytes', value: String(DLQ_MAX_MESSAGE_BYTES) }];

/** Kafka's answer for a topic another service created first: the outcome wanted. */
const ALREADY_EXISTS = 'TOPIC_ALREADY_EXISTS';

/**
 * A topic's metadata names no leader for some partition yet: retriable, as Kafka's own are.
 * @internal Exported because the unit tests tell it from other failures.
 */
export class LeadersNotReadyError extends Error {
  readonly retriable = true;
  readonly waiting: readonly string[];
  constructor(waiting: readonly string[], options?: ErrorOptions) {
    super(`no leader yet for ${waiting.join(', ')}`, options);
    this.name = 'LeadersNotReadyError';
    this.waiting = waiting;
  }
}

/**
 * Creates whichever of the plant store's topics a service uses are missing (`used`: all three by
 * default), then waits until every partition of each has a leader that answers for it: only then
 * can a producer send to it and a consumer be assigned it. Both services call it at start-up, so neither depends on
 * the other having started first, and several may create the same topics at once: a topic another
 * created first is fine, and a topic Kafka has not yet told every broker of (which kafkajs's own
 * `waitForLeaders` takes for a failure: it waits out LEADER_NOT_AVAILABLE only) is waited for.
 * Each is retried within `startUp`'s bound; a refusal (no right to create topics, an invalid
 * name or setting) fails at once. A principal sees only the topics its ACLs let it describe, so
 * each asks only for its own: on a secured cluster where they exist already, nobody needs the
 * right to create topics.
 */
export async function ensureTopics(
  kafka: Kafka,
  topics: Topics,
  { partitions, used = ['create', 'replies', 'dlq'], startUp }: EnsureTopicsOptions,
): Promise<void> {
  const names = used.map((name) => topics[name]);
  const admin = kafka.admin();
  try {
    await startUp.retry(
      `Kafka to create the topics ${names.join(', ')} and elect a leader for each partition`,
      async () => {
        await admin.connect();
        await createMissing(admin, names, partitions, topics.dlq);
        leadersMissing(await admin.fetchTopicMetadata({ topics: names }));
        // A leader named in the metadata may not act as one yet: a send refused with
        // NOT_LEADER_FOR_PARTITION made a gateway answer 503 just after it turned ready.
        await Promise.all(names.map((topic) => offsetsReadable(admin, topic)));
      },
      kafkaErrorIsRetriable,
    );
  } finally {
    await admin.disconnect();
  }
}

/**
 * Reads the topic's offsets, as a send or a fetch would need them. kafkajs 2.2.4 throws a
 * TypeError (`high.pop()` undefined, admin/index.js) when the answer has no entry for the topic,
 * as when a new topic's leaders do not act yet (a three-node cluster just after creating it): that
 * is a leader not ready, to wait for, not a bug to stop on.
 * @internal Exported because its unit test gives it the answers of a cluster whose leaders do not act yet.
 */
export async function offsetsReadable(
  admin: Pick<Admin, 'fetchTopicOffsets'>,
  topic: string,
): Promise<void> {
  try {
    await admin.fetchTopicOffsets(topic);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw new LeadersNotReadyError([topic], { cause: error });
  }
}

export interface EnsureTopicsOptions {
  /** Of each topic this call creates; existing topics are left as they are. */
  partitions: number;
  used?: readonly (keyof Topics)[];
  startUp: StartUp;
}

async function createMissing(
  admin: Admin,
  names: readonly string[],
  partitions: number,
  dlq: string,
): Promise<void> {
  const existing = new Set(await admin.listTopics());
  const missing = names.filter((topic) => !existing.has(topic));
  if (missing.length === 0) return;
  const failure = await admin
    .createTopics({
      topics: missing.map((topic) => ({
        topic,
        numPartitions: partitions,
        ...(topic === dlq ? { configEntries: DLQ_CONFIG } : {}),
      })),
      waitForLeaders: false,
    })
    .then(() => undefined, creationFailure);
  if (failure !== undefined) throw failure;
}

/**
 * What to fail on when Kafka did not create every topic asked for (it answers one error per
 * topic), or undefined: a topic another service created meanwhile is what was wanted.
 */
function creationFailure(error: unknown): Error | undefined {
  // By name: kafkajs's errors are not among the exports Node finds in its CommonJS module.
  if ((error as Error | undefined)?.name !== 'KafkaJSAggregateError') throw error;
  const { errors } = error as KafkaJSAggregateError;
  const failed = errors.filter((each) => (each as { type?: unknown }).type !== ALREADY_EXISTS);
  const first = failed.find((each) => !kafkaErrorIsRetriable(each)) ?? failed[0];
  if (first === undefined) return undefined;
  const topic = (first as { topic?: unknown }).topic;
  return new Error(`Kafka did not create the topic ${String(topic)}`, { cause: first });
}

/**
 * Throws a LeadersNotReadyError naming each topic or partition without a leader yet.
 * @internal Exported because its unit test gives it metadata with partitions without a leader.
 */
export function leadersMissing({ topics }: { topics: ITopicMetadata[] }): void {
  const waiting = topics.flatMap(({ name, partitions }) =>
    partitions.length === 0
      ? [name]
      : partitions
          .filter(({ leader, partitionErrorCode }) => leader < 0 || partitionErrorCode !== 0)
          .map(({ partitionId }) => `${name}/${String(partitionId)}`),
  );
  if (waiting.length > 0) throw new LeadersNotReadyError(waiting);
}
