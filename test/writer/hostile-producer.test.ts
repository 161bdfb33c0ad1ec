import { randomUUID } from 'node:crypto';
import type { KafkaMessage } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyPartitionHeader } from '#shared/contracts/kafka.ts';
import type { StoredPlant } from '#writer/store/plant-store.ts';
import { command, hostileCorpus, type HostileContext } from '../fixtures/hostile-commands.ts';
import { uniqueName } from '../support/servers/kafka.ts';
import { json, startTestWriter, type WriterHarness } from '../support/servers/writer.ts';

// A producer we did not write, sending what Kafka lets through (test/fixtures/hostile-commands.ts).
// Every case is produced to the real command topic with a real kafkajs producer, followed by a
// normal command on the same partition: that one must be answered, and the case must have its
// documented outcome. One writer serves the whole corpus, as one writer serves every producer.

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
function context(): HostileContext {
  const id = nextId++;
  const correlationId = randomUUID();
  return {
    id,
    correlationId,
    name: `Plant ${id}`,
    topics: harness.topics,
    largestValue,
    headers: {
      kafka_correlationId: correlationId,
      kafka_replyTopic: harness.topics.replies,
      kafka_replyPartition: replyPartitionHeader(0),
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
async function whyCopiedToDlq(c: HostileContext): Promise<string | undefined> {
  const { message } = await harness.arrival(
    harness.topics.dlq,
    ({ key, headers }) =>
      key?.toString() === String(c.id) ||
      headers?.kafka_correlationId?.toString() === c.correlationId,
  );
  return (message.headers?.['error-reply'] ?? message.headers?.['error-code'])?.toString();
}

/** Whether a reply answers the case: by its correlation id, or by its plant's name. */
const answers = (c: HostileContext) => (message: KafkaMessage) => {
  const body = json({ partition: 0, message }) as { plant?: { name?: string } };
  return byCorrelationId(c.correlationId)(message) || body.plant?.name === c.name;
};

/**
 * The case's replies, once its first arrived. A reply without a partition of its own may land on
 * another partition than the next command's, and so arrive after it.
 */
async function repliesTo(c: HostileContext): Promise<unknown[]> {
  await harness.arrival(harness.topics.replies, answers(c));
  return repliesSoFar(c);
}

/** The case's replies that arrived by the time the next command was answered. */
async function repliesSoFar(c: HostileContext): Promise<unknown[]> {
  return (await harness.received(harness.topics.replies, 1))
    .filter(({ message }) => answers(c)(message))
    .map(json);
}

async function stored(id: bigint): Promise<StoredPlant | null> {
  return harness.db.collection<StoredPlant>('plants').findOne({ _id: id });
}

describe('A hostile producer on the command topic', () => {
  for (const [group, cases] of Object.entries(hostileCorpus)) {
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
