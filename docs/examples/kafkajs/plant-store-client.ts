// Calls the plant store's writer over Kafka with nothing but kafkajs (docs/how-to/call-over-kafka.md).
import { randomUUID } from 'node:crypto';
import { Partitioners, type Consumer, type Kafka } from 'kafkajs';

/** `id` is a bigint: a JS number loses digits beyond 2^53 before it is ever sent. */
export interface NewPlant {
  id: bigint;
  name: string;
  tag?: string;
}

export type Reply =
  | { status: 200; plant: { name: string; tag?: string } }
  | { status: 400; error: { error: number; message: string } };

export interface PlantStoreClientOptions {
  kafka: Kafka;
  /** The writer's command topic. */
  commandTopic?: string;
  /** This service's own reply topic; it must exist. */
  replyTopic: string;
  /** How long `createPlant` waits for the writer, from the send on. */
  timeoutMs?: number;
}

export interface PlantStoreClient {
  /** Resolves with the writer's reply (200 or 400); rejects with ReplyTimeoutError. */
  createPlant(plant: NewPlant): Promise<Reply>;
  disconnect(): Promise<void>;
}

/** Nobody answered in time: the plant may or may not be stored; sending it again is safe. */
export class ReplyTimeoutError extends Error {
  constructor(id: bigint, timeoutMs: number) {
    super(`No reply for plant ${id.toString()} within ${timeoutMs} ms`);
    this.name = 'ReplyTimeoutError';
  }
}

/**
 * Connects a producer and a reply consumer, and resolves once the consumer fetches: a reply
 * written before that would be skipped, since a new group starts at the end of the topic.
 */
export async function connectPlantStoreClient({
  kafka,
  commandTopic = 'plants.create',
  replyTopic,
  timeoutMs = 10_000,
}: PlantStoreClientOptions): Promise<PlantStoreClient> {
  const waiting = new Map<string, (reply: Reply | undefined) => void>();
  // murmur2 on the key, like the Java client: every command for one id lands on one partition.
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  // A group of this instance's own: every instance reads every reply on the topic and keeps those
  // it waits for, so instances can share one reply topic and nothing rebalances between them.
  const consumer = kafka.consumer({
    groupId: `${replyTopic}-${randomUUID()}`,
    // An idle fetch returns after this long, and connecting waits for the first one.
    maxWaitTimeInMs: 200,
  });
  const ready = fetchingAfterJoin(consumer);

  await Promise.all([producer.connect(), consumer.connect()]);
  await consumer.subscribe({ topic: replyTopic, fromBeginning: false });
  await consumer.run({
    // No offsets to keep: a restarted instance waits for none of the old replies.
    autoCommit: false,
    eachMessage: ({ message }) => {
      const correlationId = message.headers?.kafka_correlationId?.toString();
      const settle = correlationId === undefined ? undefined : waiting.get(correlationId);
      const reply = settle === undefined ? undefined : parseReply(message.value);
      if (settle !== undefined && reply !== undefined) settle(reply);
      return Promise.resolve();
    },
  });
  const crashed = await ready;
  if (crashed !== undefined) {
    await Promise.all([consumer.disconnect(), producer.disconnect()]);
    throw crashed;
  }

  const waitForReply = (correlationId: string) =>
    new Promise<Reply | undefined>((resolve) => {
      const timer = setTimeout(() => {
        settle(undefined);
      }, timeoutMs);
      const settle = (reply: Reply | undefined) => {
        clearTimeout(timer);
        waiting.delete(correlationId);
        resolve(reply);
      };
      waiting.set(correlationId, settle);
    });

  return {
    async createPlant(plant) {
      const correlationId = randomUUID();
      // Waiting before sending: the reply can arrive before the send is acknowledged.
      const reply = waitForReply(correlationId);
      try {
        await producer.send({
          topic: commandTopic,
          acks: -1,
          messages: [
            {
              key: plant.id.toString(),
              value: newPlantJson(plant),
              headers: {
                kafka_correlationId: correlationId,
                kafka_replyTopic: replyTopic,
                'content-type': 'application/json',
              },
            },
          ],
        });
      } catch (error) {
        waiting.get(correlationId)?.(undefined);
        throw error;
      }
      const answer = await reply;
      if (answer === undefined) throw new ReplyTimeoutError(plant.id, timeoutMs);
      return answer;
    },
    async disconnect() {
      await Promise.all([consumer.disconnect(), producer.disconnect()]);
    },
  };
}

/** The command's JSON, written by hand: JSON.stringify cannot write a bigint as a number. */
export function newPlantJson({ id, name, tag }: NewPlant): string {
  const tagMember = tag === undefined ? '' : `,"tag":${JSON.stringify(tag)}`;
  return `{"id":${id.toString()},"name":${JSON.stringify(name)}${tagMember}}`;
}

/** Replies carry no id, so JSON.parse loses nothing here. */
function parseReply(value: Buffer | null): Reply | undefined {
  try {
    return JSON.parse(value?.toString() ?? '') as Reply;
  } catch {
    return undefined;
  }
}

/** Resolves once the consumer fetches, or with the error it crashed with before that. */
function fetchingAfterJoin(consumer: Consumer): Promise<Error | undefined> {
  return new Promise((resolve) => {
    let joined = false;
    const stopListening = [
      consumer.on(consumer.events.GROUP_JOIN, () => {
        joined = true;
      }),
      // FETCH comes after the offsets are resolved; FETCH_START comes before.
      consumer.on(consumer.events.FETCH, () => {
        if (!joined) return;
        for (const stop of stopListening) stop();
        resolve(undefined);
      }),
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        for (const stop of stopListening) stop();
        resolve(payload.error);
      }),
    ];
  });
}
