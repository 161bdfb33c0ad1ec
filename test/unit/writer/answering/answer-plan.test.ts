import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { decodeNewPlant } from '#shared/contracts/new-plant.ts';
import { plantOf } from '#shared/contracts/plant.ts';
import type { Reply } from '#shared/contracts/reply.ts';
import {
  messagesOf,
  planAnswers,
  settleAnswers,
  type Answer,
  type DecodedCommand,
} from '#writer/answering/answer-plan.ts';
import type { Outgoing } from '#writer/answering/outgoing.ts';
import { hostileCorpus, type HostileContext } from '#test/fixtures/hostile-commands.ts';

const TOPICS = {
  create: 'plants.create',
  replies: 'plants.create.replies',
  dlq: 'plants.create.dlq',
};
const TRACE = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };

/** A produced message as a consumer receives it: bytes for the key, the value and each header. */
function received(message: Message, offset = '7'): KafkaMessage {
  const bytes = (value: Buffer | string | null | undefined) =>
    value === null || value === undefined ? null : Buffer.from(value);
  const headers: IHeaders = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value)
      ? value.map((item) => Buffer.from(item))
      : Buffer.from(value);
  }
  return {
    key: bytes(message.key),
    value: bytes(message.value),
    headers,
    offset,
    timestamp: '1790000000000',
    attributes: 0,
    size: 0,
  } as KafkaMessage;
}

function decoded(command: KafkaMessage): DecodedCommand {
  return { command, checked: decodeNewPlant(command.value), trace: TRACE };
}

/** What a store that had none of the ids answers: each plant stored, answered 200. */
function storedFresh(commands: readonly DecodedCommand[]): Reply[] {
  return commands.flatMap(({ checked }) =>
    checked.ok ? [{ status: 200, plant: plantOf(checked.plant) } as const] : [],
  );
}

function planFor(messages: readonly Message[]): Answer[] {
  const commands = messages.map((message, index) => decoded(received(message, String(index))));
  return planAnswers(commands, storedFresh(commands), TOPICS);
}

/** Why the command's DLQ copy is there: `error-reply` for a reply given up, else `error-code`. */
function whyCopied(copy: Outgoing | undefined): string | undefined {
  const headers = copy?.message.headers ?? {};
  return (headers['error-reply'] ?? headers['error-code'])?.toString();
}

let nextId = 1n;
function context(): HostileContext {
  const id = nextId++;
  const correlationId = `correlation-${String(id)}`;
  return {
    id,
    correlationId,
    name: `Plant ${String(id)}`,
    topics: TOPICS,
    largestValue: 1 << 20,
    headers: {
      kafka_correlationId: correlationId,
      kafka_replyTopic: TOPICS.replies,
      kafka_replyPartition: Buffer.from([0, 0, 0, 0]),
    },
  };
}

describe('The reply plan for what a hostile producer sends', () => {
  for (const [group, cases] of Object.entries(hostileCorpus)) {
    // A command the broker refuses (1 MiB of correlation id) never reaches the writer.
    const reachWriter = cases.flatMap((c) =>
      'reply' in c.outcome ? [{ ...c, outcome: c.outcome }] : [],
    );
    describe(group, () => {
      it.each(reachWriter)(
        'When $name, then its answer is planned as the writer answers it',
        ({ messages, outcome }) => {
          const c = context();
          const [answer, ...others] = planFor(messages(c));
          expect(others).toEqual([]);
          if (answer === undefined) throw new Error('no answer planned');
          if (outcome.reply === 200) {
            expect(answer.reply).toEqual({ status: 200, plant: { name: c.name } });
          } else if (outcome.reply !== 'none') {
            expect(answer.reply).toMatchObject({ status: 400, error: { error: outcome.reply } });
          }

          if (outcome.reply === 'none' && outcome.kafkaRefusesReply !== undefined) {
            // Only the broker decides: the writer sends the reply, and gives it up once refused.
            expect(answer.delivery.kind).toBe('reply');
            expect(answer.copies).toEqual([]);
            const refusal = new Error(outcome.kafkaRefusesReply);
            const refused = new Map(messagesOf([answer]).map((reply) => [reply, refusal]));
            const settled = settleAnswers([answer], refused, TOPICS.dlq);
            expect(settled.answers[0]?.delivery).toMatchObject({
              kind: 'givenUp',
              reason: 'send_failed',
            });
            expect(settled.copies.map(whyCopied)).toEqual([
              expect.stringMatching(outcome.dlq ?? /^$/),
            ]);
            return;
          }
          if (outcome.reply === 'none') {
            expect(answer.delivery.kind).toBe('givenUp');
          } else {
            expect(answer.delivery).toMatchObject({
              kind: 'reply',
              message: { topic: TOPICS.replies },
            });
          }
          const copies = messagesOf([answer]).filter(({ kind }) => kind === 'copy');
          expect(copies.map(whyCopied)).toEqual(
            outcome.dlq === undefined ? [] : [expect.stringMatching(outcome.dlq)],
          );
          // Nothing else: a reply only where one is delivered.
          expect(messagesOf([answer]).length).toBe(
            copies.length + (answer.delivery.kind === 'reply' ? 1 : 0),
          );
        },
      );
    });
  }
});

describe('The reply plan of a batch', () => {
  const conflict: Reply = {
    status: 400,
    error: {
      error: 4009,
      message: 'A plant with id 2 already exists with a different name or tag',
    },
  };
  const asked = (id: number, extra: IHeaders = {}): Message => ({
    key: String(id),
    value: `{"id": ${String(id)}, "name": "Plant ${String(id)}"}`,
    headers: {
      kafka_correlationId: Buffer.from([0x00, 0xff, id]),
      kafka_replyTopic: TOPICS.replies,
      ...extra,
    },
  });

  it('When valid and invalid commands share a batch, then each gets its own answer in order, the store outcomes going to the valid ones', () => {
    const commands = [asked(1), { ...asked(2), value: 'not json' }, asked(2)].map((message, i) =>
      decoded(received(message, String(i))),
    );

    const answers = planAnswers(
      commands,
      [{ status: 200, plant: { name: 'Plant 1' } }, conflict],
      TOPICS,
    );

    expect(answers.map(({ reply }) => reply)).toMatchObject([
      { status: 200, plant: { name: 'Plant 1' } },
      { status: 400, error: { error: 4001 } },
      conflict,
    ]);
    expect(messagesOf(answers).map(({ kind, topic }) => `${kind} ${topic}`)).toEqual([
      'reply plants.create.replies',
      'reply plants.create.replies',
      'copy plants.create.dlq',
      'reply plants.create.replies',
    ]);
  });

  it('When a reply is planned, then it echoes the correlation id byte for byte as its key and header, goes to the partition asked for, and carries the trace and the headers NestJS needs', () => {
    const [answer] = planFor([asked(3, { kafka_replyPartition: Buffer.from([0, 0, 0, 5]) })]);

    expect(answer?.delivery).toEqual({
      kind: 'reply',
      message: {
        kind: 'reply',
        topic: TOPICS.replies,
        message: {
          partition: 5,
          key: Buffer.from([0x00, 0xff, 3]),
          value: Buffer.from('{"status":200,"plant":{"name":"Plant 3"}}'),
          headers: {
            kafka_correlationId: Buffer.from([0x00, 0xff, 3]),
            'kafka_nest-is-disposed': '1',
            'content-type': 'application/json',
            ...TRACE,
          },
        },
      },
    });
  });

  it('When a command asks for no reply, then nothing is sent for it, unless it is invalid: then only its copy', () => {
    const withoutReply = (message: Message): Message => ({ ...message, headers: {} });

    const [valid, invalid] = planFor([
      withoutReply(asked(4)),
      withoutReply({ ...asked(5), value: '[]' }),
    ]);

    expect(valid?.delivery).toEqual({ kind: 'none' });
    expect(messagesOf(valid ? [valid] : [])).toEqual([]);
    expect(invalid?.delivery).toEqual({ kind: 'none' });
    expect(messagesOf(invalid ? [invalid] : []).map(whyCopied)).toEqual(['4000']);
  });

  it('When an invalid command names a reply topic the writer refuses, then it is copied twice: as invalid, and for its reply given up', () => {
    const [answer] = planFor([{ ...asked(6, { kafka_replyTopic: TOPICS.create }), value: '' }]);

    expect(answer?.delivery).toMatchObject({ kind: 'givenUp', reason: 'own_topic' });
    expect(answer?.copies.map(whyCopied)).toEqual([
      '4001',
      expect.stringMatching(/^own_topic: .*command topic/),
    ]);
  });

  it('When a copy is too large for the DLQ, then its short form keeps the key, why, and the offset of the command', () => {
    const [answer] = planFor([{ ...asked(7), value: '{' }]);
    const checked = decodeNewPlant(Buffer.from('{'));

    expect(answer?.copies[0]?.ifTooLarge).toEqual({
      key: Buffer.from('7'),
      value: null,
      headers: {
        'error-code': '4001',
        'error-message': checked.ok ? undefined : checked.error.message,
        'error-copy-truncated': 'command offset 0',
      },
    });
  });

  it('When the store answers for fewer plants than it was given, then no answer is planned', () => {
    const commands = [asked(8), asked(9)].map((message) => decoded(received(message)));

    expect(() =>
      planAnswers(commands, [{ status: 200, plant: { name: 'Plant 8' } }], TOPICS),
    ).toThrow('the store answered 1 of 2 plants');
  });

  it('When Kafka refuses one reply of a batch, then only that one is given up, with why, and only its command is copied', () => {
    const planned = planFor([asked(10), asked(11), asked(12)]);
    const refusedReply = messagesOf(planned)[1];
    if (refusedReply === undefined) throw new Error('no reply planned');

    const { answers, copies } = settleAnswers(
      planned,
      new Map([[refusedReply, new Error('Not authorized to access topics')]]),
      TOPICS.dlq,
    );

    expect(answers[0]).toBe(planned[0]);
    expect(answers[2]).toBe(planned[2]);
    expect(answers[1]?.delivery).toEqual({
      kind: 'givenUp',
      topic: TOPICS.replies,
      reason: 'send_failed',
      detail: 'Not authorized to access topics',
    });
    expect(copies).toEqual(answers[1]?.copies);
    expect(copies.map(({ topic, message }) => [topic, message.key?.toString()])).toEqual([
      [TOPICS.dlq, '11'],
    ]);
    expect(copies.map(whyCopied)).toEqual(['send_failed: Not authorized to access topics']);
  });
});
