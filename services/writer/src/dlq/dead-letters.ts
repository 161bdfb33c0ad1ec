import { randomUUID } from 'node:crypto';
import { Partitioners, type IHeaders, type Kafka, type KafkaMessage } from 'kafkajs';
import { DLQ_READER_GROUP_PREFIX, HEADERS, type Topics } from '#shared/contracts/kafka.ts';
import { headerText, nextOffset } from '#shared/kafka/messages.ts';

/** A command the writer refused, as it sits on the dead-letter topic. */
export interface DeadLetter {
  partition: number;
  offset: string;
  /** When the writer copied it there, ISO 8601. */
  timestamp: string;
  key: string | null;
  /** The command's bytes, as text when they are UTF-8, else base64. */
  value: string;
  error: number | undefined;
  message: string | undefined;
  /** `partition:offset` of the dead letter this one is a replay of, if any. */
  replayOf: string | undefined;
  headers: IHeaders;
  raw: KafkaMessage;
}

export interface DeadLetterFilter {
  /** Only letters with this error code. */
  error?: number;
  /** Only letters copied at or after this instant. */
  since?: Date;
}

/**
 * Every dead letter on the topic when called, oldest first per partition. Reads with a consumer
 * group of its own, deleted afterwards: reading moves nothing for anyone else.
 */
export async function readDeadLetters(
  kafka: Kafka,
  topic: string,
  filter: DeadLetterFilter = {},
): Promise<DeadLetter[]> {
  const admin = kafka.admin();
  await admin.connect();
  const groupId = `${DLQ_READER_GROUP_PREFIX}${randomUUID()}`;
  try {
    const ends = await admin.fetchTopicOffsets(topic);
    const remaining = new Map(
      ends.filter(({ high, low }) => high !== low).map(({ partition, high }) => [partition, high]),
    );
    const letters: DeadLetter[] = [];
    if (remaining.size > 0) {
      const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
      await consumer.connect();
      try {
        await consumer.subscribe({ topic, fromBeginning: true });
        await new Promise<void>((resolve, reject) => {
          consumer.on(consumer.events.CRASH, ({ payload }) => {
            reject(payload.error);
          });
          consumer
            .run({
              eachMessage: async ({ partition, message }) => {
                const end = remaining.get(partition);
                if (end === undefined || BigInt(message.offset) >= BigInt(end)) return;
                letters.push(deadLetter(partition, message));
                if (nextOffset(message.offset) === end) remaining.delete(partition);
                if (remaining.size === 0) resolve();
                return Promise.resolve();
              },
            })
            .catch(reject);
        });
      } finally {
        await consumer.disconnect();
      }
      await admin.deleteGroups([groupId]);
    }
    return letters.filter((letter) => matches(letter, filter));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Produces each letter again as a create command, keyed as before, with its own headers but
 * without the writer's error headers and without a reply address: whoever sent it stopped
 * waiting long ago. A command that is still invalid lands on the dead-letter topic again.
 */
export async function replayDeadLetters(
  kafka: Kafka,
  topics: Pick<Topics, 'create'>,
  letters: readonly DeadLetter[],
): Promise<void> {
  if (letters.length === 0) return;
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: true,
  });
  await producer.connect();
  try {
    await producer.send({
      topic: topics.create,
      acks: -1,
      messages: letters.map((letter) => ({
        key: letter.raw.key,
        value: letter.raw.value,
        headers: {
          ...withoutHeaders(letter.headers, DROPPED_ON_REPLAY),
          [HEADERS.replayOf]: `${String(letter.partition)}:${letter.offset}`,
        },
      })),
    });
  } finally {
    await producer.disconnect();
  }
}

const DROPPED_ON_REPLAY = [
  HEADERS.errorCode,
  HEADERS.errorMessage,
  HEADERS.replayOf,
  HEADERS.replyTopic,
  HEADERS.replyPartition,
  HEADERS.correlationId,
  HEADERS.deadline,
];

function deadLetter(partition: number, message: KafkaMessage): DeadLetter {
  const headers = message.headers ?? {};
  const text = (name: string) => headerText(headers, name);
  const code = Number(text(HEADERS.errorCode));
  const value = message.value ?? Buffer.alloc(0);
  const utf8 = value.toString('utf8');
  return {
    partition,
    offset: message.offset,
    timestamp: new Date(Number(message.timestamp)).toISOString(),
    key: message.key?.toString() ?? null,
    value: Buffer.from(utf8, 'utf8').equals(value) ? utf8 : value.toString('base64'),
    error: Number.isInteger(code) ? code : undefined,
    message: text(HEADERS.errorMessage),
    replayOf: text(HEADERS.replayOf),
    headers,
    raw: message,
  };
}

function matches(letter: DeadLetter, { error, since }: DeadLetterFilter): boolean {
  if (error !== undefined && letter.error !== error) return false;
  return since === undefined || new Date(letter.timestamp) >= since;
}

function withoutHeaders(headers: IHeaders, names: readonly string[]): IHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}
