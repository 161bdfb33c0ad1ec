import type { IHeaders, Message } from 'kafkajs';
import { replyPartitionHeader, type Topics } from '#shared/contracts/kafka.ts';
import { uniqueName } from './kafka.ts';

// What a producer we did not write may send on the command topic, as far as Kafka lets it
// through. test/writer/hostile-producer.test.ts produces every case to a real writer;
// test/unit/answer-plan.test.ts runs the cases the writer decides through its reply plan.
// docs/reference/kafka-contract.md lists the outcomes.

const PARTITION = 0;

/** What a case must lead to, besides the next command being answered. */
export type Outcome =
  | { reply: 200 | 4000 | 4001; dlq?: RegExp; stored?: boolean }
  | {
      reply: 'none';
      dlq?: RegExp;
      stored: boolean;
      /** Only the broker decides the row: what it refuses the reply with (the writer sends it). */
      kafkaRefusesReply?: string;
    }
  | { refusedByBroker: RegExp };

export interface HostileCase {
  name: string;
  /** The command(s) to produce; `id` and `correlationId` are this case's own. */
  messages: (context: HostileContext) => Message[];
  outcome: Outcome;
}

export interface HostileContext {
  id: bigint;
  correlationId: string;
  name: string;
  topics: Topics;
  /** The largest command value the broker accepts. */
  largestValue: number;
  /** Reply headers to the reply topic, partition 0, with this case's correlation id. */
  headers: IHeaders;
}

const plant = ({ id, name }: HostileContext) => `{"id": ${id}, "name": "${name}"}`;
export const command = (context: HostileContext, overrides: Partial<Message> = {}): Message => ({
  partition: PARTITION,
  key: String(context.id),
  value: plant(context),
  headers: context.headers,
  ...overrides,
});
const withHeaders = (context: HostileContext, headers: IHeaders): Message =>
  command(context, { headers: { ...context.headers, ...headers } });

const replyAddress: HostileCase[] = [
  {
    name: 'the reply topic was never created',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: uniqueName('missing') })],
    outcome: {
      reply: 'none',
      dlq: /^send_failed: /,
      stored: true,
      kafkaRefusesReply: 'This server does not host this topic-partition',
    },
  },
  {
    name: 'the reply topic is empty',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: '' })],
    outcome: { reply: 'none', dlq: /^invalid_topic: /, stored: true },
  },
  {
    name: 'the reply topic is the command topic',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: c.topics.create })],
    outcome: { reply: 'none', dlq: /^own_topic: .*command topic/, stored: true },
  },
  {
    name: 'the reply topic is the dead-letter topic',
    messages: (c) => [withHeaders(c, { kafka_replyTopic: c.topics.dlq })],
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
    messages: (c) => [withHeaders(c, { kafka_replyPartition: replyPartitionHeader(-1) })],
    outcome: { reply: 'none', dlq: /^invalid_partition: /, stored: true },
  },
  {
    name: 'the reply partition is past the last partition',
    messages: (c) => [withHeaders(c, { kafka_replyPartition: replyPartitionHeader(3) })],
    outcome: {
      reply: 'none',
      dlq: /^send_failed: partition 3 of .* does not exist/,
      stored: true,
      kafkaRefusesReply: 'partition 3 of plants.create.replies does not exist',
    },
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
      withHeaders(c, { kafka_replyTopic: [c.topics.replies, uniqueName('missing')] }),
    ],
    outcome: { reply: 200 },
  },
  {
    name: 'the reply partition is given twice (the first counts)',
    messages: (c) => [
      withHeaders(c, { kafka_replyPartition: [replyPartitionHeader(0), replyPartitionHeader(7)] }),
    ],
    outcome: { reply: 200 },
  },
];

const correlation: HostileCase[] = [
  {
    name: 'the correlation id is missing (the reply carries none)',
    messages: (c) => [command(c, { headers: { kafka_replyTopic: c.topics.replies } })],
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
      kafkaRefusesReply:
        'The request included a message larger than the max message size the server will accept',
    },
  },
];

const otherHeaders: HostileCase[] = [
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

const keys: HostileCase[] = [
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

const values: HostileCase[] = [
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
    messages: (c) => [command(c, { value: 'x'.repeat(c.largestValue) })],
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

export const hostileCorpus = { replyAddress, correlation, otherHeaders, keys, values };
