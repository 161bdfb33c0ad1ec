import { inject, describe, expect, it, onTestFinished } from 'vitest';
import { kafkaClient } from '#shared/kafka/client.ts';
import { createLogger } from '#shared/logger.ts';
import { outgoingSender } from '#writer/kafka/outgoing-sender.ts';
import type { Outgoing } from '#writer/answering/outgoing.ts';
import { startTestWriter } from '../support/servers/writer.ts';

/** Kafka's default message.max.bytes: the largest record batch one partition takes. */
const BROKER_BATCH_LIMIT = 1_048_588;
const REPLY_BYTES = 400;
const REPLIES_PER_BATCH = 500;
/** Batches in flight at once: their replies together are three times the broker's limit. */
const BATCHES = Math.ceil((3 * BROKER_BATCH_LIMIT) / (REPLY_BYTES * REPLIES_PER_BATCH));

describe('The writer’s replies sent together', () => {
  it('When the batches waiting for a send hold more replies to one partition than Kafka takes in one request, then every reply is written and Kafka refused no send of them', async () => {
    const harness = await startTestWriter({ writer: false });
    const logged: { msg: string }[] = [];
    const logger = createLogger('writer', 'warn', {
      write: (line: string) => {
        logged.push(JSON.parse(line) as { msg: string });
      },
    });
    const kafka = kafkaClient('writer', { brokers: inject('kafkaBrokers').split(',') }, logger);
    const sender = await outgoingSender(kafka, logger);
    onTestFinished(() => sender.disconnect());
    const batch = (index: number): Outgoing[] =>
      Array.from({ length: REPLIES_PER_BATCH }, (_, at) => ({
        kind: 'reply',
        topic: harness.topics.replies,
        message: {
          partition: 0,
          key: `${String(index)}-${String(at)}`,
          value: 'r'.repeat(REPLY_BYTES),
        },
      }));
    // A topic that took a reply is known: the replies to it go out together from then on.
    expect((await sender.send(batch(0))).size).toBe(0);

    const refusals = await Promise.all(
      Array.from({ length: BATCHES }, (_, index) => sender.send(batch(index + 1))),
    );

    expect(refusals.map((refused) => refused.size)).toEqual(refusals.map(() => 0));
    const expected = (BATCHES + 1) * REPLIES_PER_BATCH;
    const written = await harness.received(harness.topics.replies, expected);
    expect(new Set(written.map(({ message }) => message.key?.toString())).size).toBe(expected);
    expect(
      logged.map(({ msg }) => msg).filter((msg) => /Produce|max message size/.test(msg)),
    ).toEqual([]);
  });
});
