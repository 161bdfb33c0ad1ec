import { randomUUID } from 'node:crypto';
import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredPlant } from '../../services/writer/src/store/plant-store.ts';
import { uniqueName } from '../support/kafka.ts';
import { int32, json, startTestWriter, type WriterHarness } from '../support/writer.ts';

// A producer we did not write, sending what Kafka lets through. Every case is produced to the real
// command topic with a real kafkajs producer, followed by a normal command on the same partition:
// that one must be answered, and the case must have its documented outcome. One writer serves
// the whole corpus, as one writer serves every producer. docs/kafka-clients.md lists the outcomes.

const PARTITION = 0;

/** What a case must lead to, besides the next command being answered. */
type Outcome =
  | { reply: 200 | 4000 | 4001; dlq?: RegExp; stored?: boolean }
  | { reply: 'none'; dlq?: RegExp; stored: boolean }
  | { refusedByBroker: RegExp };

interface Case {
  name: string;
  /** The command(s) to produce; `id` and `correlationId` are this case's own. */
  messages: (context: Context) => Message[];
  outcome: Outcome;
}

interface Context {
  id: bigint;
  correlationId: string;
  name: string;
  harness: WriterHarness;
  /** Reply headers to the harness's reply topic, partition 0, with this case's correlation id. */
  headers: IHeaders;
}

const plant = ({ id, name }: Context) => `{"id": ${id}, "name": "${name}"}`;
const command = (context: Context, overrides: Partial<Message> = {}): Message => ({
  partition: PARTITION,
  key: String(context.id),
  value: plant(context),
  headers: context.headers,
  ...overrides,
});
const withHeaders = (context: Context, headers: IHeaders): Message =>
  command(context, { headers: { ...context.headers, ...headers } });

const replyAddress: Case[] = [
  {
    name: 'the reply topic was never created',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: uniqueName('missing') })],
    outcome: { reply: 'none', dlq: /^send_failed: /, stored: true },
  },
  {
    name: 'the reply topic is empty',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: '' })],
    outcome: { reply: 'none', dlq: /^invalid_topic: /, stored: true },
  },
  {
    name: 'the reply topic is the command topic',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: c.harness.topics.create })],
    outcome: { reply: 'none', dlq: /^own_topic: .*command topic/, stored: true },
  },
  {
    name: 'the reply topic is the dead-letter topic',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: c.harness.topics.dlq })],
    outcome: { reply: 'none', dlq: /^own_topic: .*dead-letter topic/, stored: true },
  },
  {
    name: 'the reply topic is longer than Kafka allows (250 characters)',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: 'r'.repeat(250) })],
    outcome: { reply: 'none', dlq: /^invalid_topic: /, stored: true },
  },
  {
    name: 'the reply topic has a character Kafka refuses',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: 'replies/one' })],
    outcome: { reply: 'none', dlq: /^invalid_topic: /, stored: true },
  },
  {
    name: 'the reply topic is not UTF-8',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: Buffer.from([0x72, 0xff, 0xfe]) })],
    outcome: { reply: 'none', dlq: /^invalid_topic: /, stored: true },
  },
  {
    name: 'the reply partition is negative',
    messages: (c) => [withHeaders(c, { kafka_replyPartition: int32(-1) })],
    outcome: { reply: 'none', dlq: /^invalid_partition: /, stored: true },
  },
  {
    name: 'the reply partition is past the last partition',
    messages: (c) => [withHeaders(c, { kafka_replyPartition: int32(3) })],
    outcome: { reply: 'none', dlq: /^send_failed: partition 3 of .* does not exist/, stored: true },
  },
  {
    name: 'the reply partition is not a number',
    messages: (c) => [withHeaders(c, { kafka_replyPartition: 'one' })],
    outcome: { reply: 200 },
  },
  {
    name: 'the reply partition is 8 bytes',
    messages: (c) => [withHeaders(c, { kafka_replyPartition: Buffer.alloc(8) })],
    outcome: { reply: 200 },
  },
  {
    name: 'the reply topic is given twice (the first counts)',
    messages: (c) => [
      withHeaders(c, { kafka_replyTopic: [c.harness.topics.replies, uniqueName('missing')] }),
    ],
    outcome: { reply: 200 },
  },
  {
    name: 'the reply partition is given twice (the first counts)',
    messages: (c) => [withHeaders(c, { kafka_replyPartition: [int32(0), int32(7)] })],
    outcome: { reply: 200 },
  },
];

const correlation: Case[] = [
  {
    name: 'the correlation id is missing (the reply carries none)',
    messages: (c) => [command(c, { headers: { kafka_replyTopic: c.harness.topics.replies } })],
    outcome: { reply: 200 },
  },
  {
    name: 'the correlation id is empty',
    messages: (c) => [withHeaders(c, { kafka_correlationId: '' })],
    outcome: { reply: 200 },
  },
  {
    name: 'the correlation id is given twice (the first is echoed)',
    messages: (c) => [withHeaders(c, { kafka_correlationId: [c.correlationId, 'second'] })],
    outcome: { reply: 200 },
  },
  {
    name: 'the correlation id is 1 MiB (the broker refuses the command)',
    messages: (c) => [withHeaders(c, { kafka_correlationId: 'c'.repeat(1 << 20) })],
    outcome: { refusedByBroker: /larger than the max message size/ },
  },
  {
    name: 'the correlation id is 600 KiB (the reply, key and header, exceeds the limit)',
    messages: (c) => [withHeaders(c, { kafka_correlationId: 'c'.repeat(600 << 10) })],
    outcome: {
      reply: 'none',
      dlq: /^send_failed: .*larger than the max message size/,
      stored: true,
    },
  },
];

const otherHeaders: Case[] = [
  {
    name: 'content-type is given twice',
    messages: (c) => [withHeaders(c, { 'content-type': ['application/json', 'text/plain'] })],
    outcome: { reply: 200 },
  },
  {
    name: 'x-request-id is given twice',
    messages: (c) => [withHeaders(c, { 'x-request-id': ['one', 'two'] })],
    outcome: { reply: 200 },
  },
  {
    name: 'x-deadline is long past (only the gateway sets it; the writer stores anyway)',
    messages: (c) => [withHeaders(c, { 'x-deadline': '1' })],
    outcome: { reply: 200 },
  },
  {
    name: 'another header holds bytes that are not UTF-8',
    messages: (c) => [withHeaders(c, { 'x-binary': Buffer.from([0xff, 0xfe, 0x00]) })],
    outcome: { reply: 200 },
  },
];

const keys: Case[] = [
  {
    name: 'the key differs from the id',
    messages: (c) => [command(c, { key: 'another-key' })],
    outcome: { reply: 200 },
  },
  {
    name: 'there is no key',
    messages: (c) => [command(c, { key: null })],
    outcome: { reply: 200 },
  },
  {
    name: 'the key is not UTF-8',
    messages: (c) => [command(c, { key: Buffer.from([0xff, 0x00, 0xfe]) })],
    outcome: { reply: 200 },
  },
];

const values: Case[] = [
  {
    name: 'the value is a tombstone (null)',
    messages: (c) => [command(c, { value: null })],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value is empty',
    messages: (c) => [command(c, { value: '' })],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value is not UTF-8',
    messages: (c) => [command(c, { value: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) })],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value starts with a UTF-8 byte order mark (decoded away)',
    messages: (c) => [command(c, { value: `\ufeff${plant(c)}` })],
    outcome: { reply: 200 },
  },
  {
    name: 'the value is as large as the broker accepts (one byte more is refused)',
    messages: (c) => [command(c, { value: 'x'.repeat(largestValue) })],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value has trailing garbage',
    messages: (c) => [command(c, { value: `${plant(c)} x` })],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value is a JSON array',
    messages: (c) => [command(c, { value: `[${plant(c)}]` })],
    outcome: { reply: 4000, dlq: /^4000$/ },
  },
  {
    name: 'the value is a JSON string',
    messages: (c) => [command(c, { value: JSON.stringify(plant(c)) })],
    outcome: { reply: 4000, dlq: /^4000$/ },
  },
  {
    name: 'the id is a string',
    messages: (c) => [command(c, { value: `{"id": "${c.id}", "name": "${c.name}"}` })],
    outcome: { reply: 4000, dlq: /^4000$/ },
  },
  {
    name: 'the id is beyond int64',
    messages: (c) => [command(c, { value: `{"id": 9223372036854775808, "name": "${c.name}"}` })],
    outcome: { reply: 4000, dlq: /^4000$/ },
  },
  {
    name: 'the id has 100,000 digits',
    messages: (c) => [
      command(c, { value: `{"id": 1${'0'.repeat(100_000)}, "name": "${c.name}"}` }),
    ],
    outcome: { reply: 4000, dlq: /^4000$/ },
  },
  {
    name: 'the name holds a NUL',
    messages: (c) => [command(c, { value: `{"id": ${c.id}, "name": "a\\u0000b"}` })],
    outcome: { reply: 4000, dlq: /^4000$/ },
  },
  {
    name: 'the value carries __proto__',
    messages: (c) => [
      command(c, { value: `{"id": ${c.id}, "name": "${c.name}", "__proto__": {}}` }),
    ],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value repeats a member name',
    messages: (c) => [command(c, { value: `{"id": ${c.id}, "id": 1, "name": "${c.name}"}` })],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value holds an unpaired surrogate',
    messages: (c) => [command(c, { value: `{"id": ${c.id}, "name": "\\ud800"}` })],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value nests 500,000 levels deep',
    messages: (c) => [command(c, { value: '['.repeat(500_000) })],
    outcome: { reply: 4001, dlq: /^4001$/ },
  },
  {
    name: 'the value has unknown properties (ignored, not stored)',
    messages: (c) => [
      command(c, { value: `{"id": ${c.id}, "name": "${c.name}", "price": {"eur": 3}}` }),
    ],
    outcome: { reply: 200 },
  },
];

const corpus = { replyAddress, correlation, otherHeaders, keys, values };

let harness: WriterHarness;
let largestValue = 0;
const teardown: (() => Promise<void>)[] = [];
beforeAll(async () => {
  harness = await startTestWriter({ registerCleanup: (cleanup) => teardown.push(cleanup) });
  const admin = harness.kafka.admin();
  await admin.connect();
  const probeTopic = uniqueName('probe');
  await admin.createTopics({ topics: [{ topic: probeTopic }], waitForLeaders: true });
  largestValue = await largestAcceptedValue(probeTopic);
  await admin.deleteTopics({ topics: [probeTopic] });
  await admin.disconnect();
});

/**
 * The largest value the broker takes in a command like the corpus's (same key and header sizes),
 * found on the command topic's own limit by bisection: the broker counts the whole record batch.
 */
async function largestAcceptedValue(topic: string): Promise<number> {
  const probe = context();
  // A producer of its own: one that produced to a topic deleted later fails every send after.
  const producer = harness.kafka.producer();
  await producer.connect();
  const accepts = (size: number) =>
    producer
      .send({
        topic,
        messages: [command(probe, { value: 'x'.repeat(size) })],
      })
      .then(
        () => true,
        () => false,
      );
  let [low, high] = [1_048_588 - 1_024, 1_048_588];
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (await accepts(middle)) low = middle;
    else high = middle;
  }
  await producer.disconnect();
  return low;
}
afterAll(async () => {
  await Promise.all(teardown.map((cleanup) => cleanup()));
});

let nextId = 1_000n;
function context(): Context {
  const id = nextId++;
  const correlationId = randomUUID();
  return {
    id,
    correlationId,
    name: `Plant ${id}`,
    harness,
    headers: {
      kafka_correlationId: correlationId,
      kafka_replyTopic: harness.topics.replies,
      kafka_replyPartition: int32(0),
    },
  };
}

const byCorrelationId = (correlationId: string) => (message: KafkaMessage) =>
  message.headers?.kafka_correlationId?.toString() === correlationId;

/** Sends a normal command on the same partition and waits for its 200. */
async function nextCommandIsAnswered(): Promise<void> {
  const next = context();
  await harness.producer.send({ topic: harness.topics.create, messages: [command(next)] });
  const reply = await harness.arrival(harness.topics.replies, byCorrelationId(next.correlationId));
  expect(json(reply)).toEqual({ status: 200, plant: { name: next.name } });
}

/** The DLQ copy's `error-reply` or `error-code`, waiting for the copy. */
async function whyCopiedToDlq(c: Context): Promise<string | undefined> {
  const { message } = await harness.arrival(
    harness.topics.dlq,
    ({ key, headers }) =>
      key?.toString() === String(c.id) ||
      headers?.kafka_correlationId?.toString() === c.correlationId,
  );
  return (message.headers?.['error-reply'] ?? message.headers?.['error-code'])?.toString();
}

/** Whether a reply answers the case: by its correlation id, or by its plant's name. */
const answers = (c: Context) => (message: KafkaMessage) => {
  const body = json({ partition: 0, message }) as { plant?: { name?: string } };
  return byCorrelationId(c.correlationId)(message) || body.plant?.name === c.name;
};

/**
 * The case's replies, once its first arrived. A reply without a partition of its own may land on
 * another partition than the next command's, and so arrive after it.
 */
async function repliesTo(c: Context): Promise<unknown[]> {
  await harness.arrival(harness.topics.replies, answers(c));
  return repliesSoFar(c);
}

/** The case's replies that arrived by the time the next command was answered. */
async function repliesSoFar(c: Context): Promise<unknown[]> {
  return (await harness.received(harness.topics.replies, 1))
    .filter(({ message }) => answers(c)(message))
    .map(json);
}

async function stored(id: bigint): Promise<StoredPlant | null> {
  return harness.db.collection<StoredPlant>('plants').findOne({ _id: id });
}

describe('A hostile producer on the command topic', () => {
  for (const [group, cases] of Object.entries(corpus)) {
    describe(group, () => {
      it.each(cases)(
        'When $name, then it has its outcome and the next command is answered',
        async ({ messages, outcome }) => {
          const c = context();
          const sent = harness.producer.send({
            topic: harness.topics.create,
            messages: messages(c),
          });

          if ('refusedByBroker' in outcome) {
            await expect(sent).rejects.toThrow(outcome.refusedByBroker);
            await nextCommandIsAnswered();
            expect(await stored(c.id)).toBeNull();
            return;
          }
          await sent;
          await nextCommandIsAnswered();

          if (outcome.dlq !== undefined) expect(await whyCopiedToDlq(c)).toMatch(outcome.dlq);
          if (outcome.reply === 'none') expect(await repliesSoFar(c)).toEqual([]);
          else if (outcome.reply === 200)
            expect(await repliesTo(c)).toEqual([{ status: 200, plant: { name: c.name } }]);
          else
            expect(await repliesTo(c)).toMatchObject([
              { status: 400, error: { error: outcome.reply } },
            ]);
          const expectStored = 'stored' in outcome ? outcome.stored : outcome.reply === 200;
          expect(await stored(c.id)).toEqual(
            expectStored ? expect.objectContaining({ name: c.name }) : null,
          );
        },
      );
    });
  }
});

describe('A hostile producer that uses transactions or bursts', () => {
  it('When a transaction of commands is aborted, then none is stored or answered; when one commits, its command is', async () => {
    const producer = harness.kafka.producer({
      transactionalId: uniqueName('transactions'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const [aborted, committed] = [context(), context()];

    const abort = await producer.transaction();
    await abort.send({ topic: harness.topics.create, messages: [command(aborted)] });
    await abort.abort();
    const commit = await producer.transaction();
    await commit.send({ topic: harness.topics.create, messages: [command(committed)] });
    await commit.commit();
    await producer.disconnect();

    const reply = await harness.arrival(
      harness.topics.replies,
      byCorrelationId(committed.correlationId),
    );
    expect(json(reply)).toEqual({ status: 200, plant: { name: committed.name } });
    await nextCommandIsAnswered();
    expect(await stored(aborted.id)).toBeNull();
    const replies = await harness.received(harness.topics.replies, 1);
    expect(
      replies.filter(({ message }) => byCorrelationId(aborted.correlationId)(message)),
    ).toEqual([]);
  });

  it('When one producer sends a burst of 5,000 commands to one partition, then single commands on another are answered before the burst is', async () => {
    const burst = Array.from({ length: 5_000 }, () => context());
    const burstIds = new Set(burst.map(({ correlationId }) => correlationId));
    const burstReplies = () =>
      harness
        .received(harness.topics.replies, 1)
        .then(
          (replies) =>
            replies.filter(({ message }) =>
              burstIds.has(message.headers?.kafka_correlationId?.toString() ?? ''),
            ).length,
        );

    // 1 KiB of an unknown property each: 5 MiB, more than the writer fetches of a partition at once.
    const note = 'n'.repeat(1_024);
    // Sent as fast as the producer can, in record batches under the broker's 1 MiB limit.
    for (let start = 0; start < burst.length; start += 500) {
      await harness.producer.send({
        topic: harness.topics.create,
        messages: burst
          .slice(start, start + 500)
          .map((c) =>
            command(c, { value: `{"id": ${c.id}, "name": "${c.name}", "note": "${note}"}` }),
          ),
      });
    }
    const burstAnsweredAtSingles: number[] = [];
    for (let index = 0; index < 5; index++) {
      const single = context();
      await harness.producer.send({
        topic: harness.topics.create,
        messages: [command(single, { partition: 1 })],
      });
      const reply = await harness.arrival(
        harness.topics.replies,
        byCorrelationId(single.correlationId),
      );
      expect(json(reply)).toEqual({ status: 200, plant: { name: single.name } });
      burstAnsweredAtSingles.push(await burstReplies());
    }

    await harness.received(harness.topics.replies, 5_000);
    await expect.poll(burstReplies, { timeout: 30_000 }).toBe(5_000);
    expect(burstAnsweredAtSingles[0]).toBeLessThan(5_000);
  });
});
