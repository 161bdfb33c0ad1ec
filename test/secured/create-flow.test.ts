import { randomBytes } from 'node:crypto';
import { Partitioners } from 'kafkajs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { PRODUCER_GROUP_PREFIX, PRODUCER_REPLY_PREFIX } from '#local/kafka/acls.ts';
import { HEADERS, TOPICS } from '#shared/contracts/kafka.ts';
import { postPlant } from '../support/clients/http-client.ts';
import {
  adminClient,
  clientAs,
  createTopicAsAdmin,
  firstMessage,
  logOf,
  securedPlants,
  securedStack,
  securedUnavailable,
  uniquePlant,
} from '../support/servers/secured.ts';

async function produceCommand(body: string, replyTopic: string): Promise<Buffer> {
  const producer = (await clientAs('producer')).producer({
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  onTestFinished(() => producer.disconnect());
  const correlationId = randomBytes(16);
  await producer.send({
    topic: TOPICS.create,
    messages: [
      {
        value: body,
        headers: { [HEADERS.correlationId]: correlationId, [HEADERS.replyTopic]: replyTopic },
      },
    ],
  });
  return correlationId;
}

const sameCorrelation = (id: Buffer) => (message: { headers?: Record<string, unknown> }) =>
  Buffer.from(message.headers?.[HEADERS.correlationId] as Buffer).equals(id);

describe.skipIf(securedUnavailable)(
  'Create flow on a secured stack (SASL_SSL, ACLs, TLS store)',
  () => {
    it('When a client posts a plant, then the gateway and the writer, each as its own principal, store it and answer 200', async () => {
      const plant = uniquePlant('Secured Monstera');

      const answer = await postPlant(securedStack().gatewayUrl, plant.body);

      expect(answer).toMatchObject({ status: 200 });
      expect(JSON.parse((answer as { body: string }).body)).toEqual(plant.answer);
      const plants = await securedPlants();
      expect(await plants.findOne({ _id: plant.id })).toMatchObject({
        _id: plant.id,
        name: plant.name,
      });
    });

    it("When another service produces a command as the producer principal, then the writer answers on that principal's own reply topic", async () => {
      const replyTopic = `${PRODUCER_REPLY_PREFIX}${randomBytes(6).toString('hex')}`;
      await createTopicAsAdmin(replyTopic);
      const plant = uniquePlant('Foreign Fern');

      const correlationId = await produceCommand(plant.body, replyTopic);
      const reply = await firstMessage(
        await clientAs('producer'),
        replyTopic,
        `${PRODUCER_GROUP_PREFIX}${randomBytes(6).toString('hex')}`,
        sameCorrelation(correlationId),
      );

      expect(JSON.parse(reply.value?.toString() ?? 'null')).toEqual({
        status: 200,
        plant: plant.answer,
      });
    });

    it('When an ACL refuses the writer its reply, then that command is dead-lettered with the reason and the next create is answered', async () => {
      const forbidden = `not-the-writers.${randomBytes(6).toString('hex')}`;
      await createTopicAsAdmin(forbidden);
      const refused = uniquePlant('Unanswerable Ivy');

      const correlationId = await produceCommand(refused.body, forbidden);
      const letter = await firstMessage(
        adminClient(),
        TOPICS.dlq,
        `dlq-check-${randomBytes(6).toString('hex')}`,
        sameCorrelation(correlationId),
      );
      const next = uniquePlant('Next Pothos');
      const answer = await postPlant(securedStack().gatewayUrl, next.body);

      expect(letter.value?.toString()).toBe(refused.body);
      expect(letter.headers?.[HEADERS.replyError]?.toString()).toMatch(
        /^send_failed: .*Not authorized to access topics/,
      );
      expect(answer).toMatchObject({ status: 200 });
      expect(logOf(securedStack().writerLog)).toContain(forbidden);
    });
  },
);
