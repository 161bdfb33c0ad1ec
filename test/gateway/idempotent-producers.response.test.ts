import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '#shared/logger.ts';
import { attachGateway } from '../support/servers/gateway.ts';
import { localServersUnavailable, OWN_STACK_TIMEOUT_MS } from '../support/servers/local-servers.ts';
import { ownKafka } from '../support/servers/own-kafka.ts';
import { aPlant } from '../support/clients/plants.ts';
import { startTestWriter } from '../support/servers/writer.ts';

/** The record batch a message came in, as kafkajs decodes it (its types leave it out). */
const batchOf = (message: KafkaMessage) =>
  (message as KafkaMessage & { batchContext: { producerId: string; firstSequence: number } })
    .batchContext;

describe('Idempotent producers', { timeout: OWN_STACK_TIMEOUT_MS }, () => {
  it('When a create is answered, then its command and its reply were written by idempotent producers', async () => {
    const harness = await startTestWriter();
    const gateway = await attachGateway(harness);

    // The first reply to a reply topic goes out on a producer of its own (outgoing-sender.ts).
    const responses = [await gateway.post(aPlant().body), await gateway.post(aPlant().body)];

    expect(responses.map(({ statusCode }) => statusCode)).toEqual([200, 200]);
    const commands = (await harness.received(harness.topics.create, 2)).map(({ message }) =>
      batchOf(message),
    );
    const second = (await harness.received(harness.topics.replies, 2))[1];
    expect(second).toBeDefined();
    const reply = batchOf(second?.message as KafkaMessage);
    for (const batch of [...commands, reply]) {
      expect(Number(batch.producerId)).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(commands.map(({ producerId }) => producerId)).size).toBe(1);
  });

  it.skipIf(localServersUnavailable)(
    'When a publish failed while the broker was down, then the next one goes out under a new producer id and is answered',
    async () => {
      const broker = await ownKafka();
      const harness = await startTestWriter({
        brokers: broker.brokers,
        logger: createLogger('writer', 'silent'),
      });
      // Short retries, so that the publish made while the broker is down fails at once.
      const gateway = await attachGateway(
        {
          ...harness,
          kafka: new Kafka({
            brokers: [broker.brokers],
            logLevel: logLevel.NOTHING,
            retry: { retries: 1 },
          }),
        },
        { replyTimeoutMs: 30_000 },
      );
      const before = aPlant();
      expect((await gateway.post(before.body)).statusCode).toBe(200);

      await broker.stop();
      const refused = await gateway.post(aPlant().body);
      await broker.start();
      const after = aPlant();
      const answered = await gateway.post(after.body);

      expect(refused.statusCode).toBe(503);
      expect(answered.statusCode).toBe(200);
      expect(answered.json()).toEqual(after.answer);
      const commands = await harness.received(harness.topics.create, 2);
      const producerOf = (plant: { id: bigint }) =>
        commands
          .filter(({ message }) => message.key?.toString() === plant.id.toString())
          .map(({ message }) => batchOf(message).producerId);
      expect(producerOf(after)).toHaveLength(1);
      expect(producerOf(after)[0]).not.toBe(producerOf(before)[0]);
    },
  );
});
