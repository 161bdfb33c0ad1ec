import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { describe, expect, it } from 'vitest';
import { HEADERS } from '#shared/contracts/kafka.ts';
import { parseJsonLosslessly, stringifyJson } from '#shared/contracts/json.ts';
import { headersAsText, mismatches } from '../support/checks/document-schemas.ts';
import { startTestGateway, type TestGateway } from '../support/servers/gateway.ts';
import type { ReceivedMessage } from '../support/servers/writer.ts';

interface Example {
  name: string;
  headers: Record<string, string>;
  payload: unknown;
}

interface Message {
  headers: { properties: Record<string, object> };
  payload: object;
  bindings: { kafka: { key: { examples: [string] } } };
  examples: Example[];
}

/** The parts of the served AsyncAPI document these tests read. */
interface AsyncApi {
  channels: Record<'createCommands' | 'deadLetters', { address: string }>;
  components: { messages: Record<'createPlant' | 'createPlantReply' | 'deadLetter', Message> };
}

/** What the parser calls an error or a warning; hints and infos (a newer minor version exists) are not. */
const BLOCKING = new Set<number>([DiagnosticSeverity.Error, DiagnosticSeverity.Warning]);

/**
 * The served document as a generic JSON tool reads it, to check messages against, and read
 * losslessly as a client must to build commands from it: its example ids exceed 2^53.
 */
async function servedDocument(gateway: TestGateway) {
  const response = await gateway.request({ method: 'GET', url: '/asyncapi.json' });
  expect(response.statusCode).toBe(200);
  return {
    document: response.json<AsyncApi>(),
    lossless: parseJsonLosslessly(response.body) as AsyncApi,
  };
}

/**
 * A received message as the document shows it (headers as text, the payload decoded), the
 * example with its correlation id, and where it departs from the message's schemas: a header or
 * payload that does not match, a header the document does not declare.
 */
function asDocumented(
  document: AsyncApi,
  message: Message,
  { partition, message: { key, headers, value } }: ReceivedMessage,
  decode: (value: string) => unknown,
) {
  const received = { headers: headersAsText(headers), payload: decode(value?.toString() ?? '') };
  const declared = Object.keys(message.headers.properties);
  const example = message.examples.find(
    (candidate) =>
      candidate.headers[HEADERS.correlationId] === received.headers[HEADERS.correlationId],
  );
  return {
    example: example ?? { name: 'none with this correlation id', headers: {}, payload: null },
    key: key?.toString(),
    partition,
    ...received,
    departures: [
      ...mismatches(document, message.headers, received.headers).map((why) => `headers ${why}`),
      ...Object.keys(received.headers)
        .filter((name) => !declared.includes(name))
        .map((name) => `header ${name} is not in the document`),
      ...mismatches(document, message.payload, received.payload).map((why) => `payload ${why}`),
    ],
  };
}

describe('GET /asyncapi.json, the Kafka contract', () => {
  it('When fetched without a token, then the AsyncAPI parser finds a valid 3.0.0 document naming this deployment’s topics, whose examples match their schemas', async () => {
    const gateway = await startTestGateway({ writer: false });

    const response = await gateway.request({ method: 'GET', url: '/asyncapi.json' });

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const { document, diagnostics } = await new Parser().parse(response.body);
    expect(
      diagnostics
        .filter(({ severity }) => BLOCKING.has(severity))
        .map(({ code, message, path }) => `${String(code)} at ${path.join('/')}: ${message}`),
    ).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
    expect(
      Object.fromEntries(
        document
          ?.channels()
          .all()
          .map((c) => [c.id(), c.address()]) ?? [],
      ),
    ).toEqual({
      createCommands: gateway.topics.create,
      replies: null,
      gatewayReplies: gateway.topics.replies,
      deadLetters: gateway.topics.dlq,
    });
    const served = response.json<AsyncApi>();
    expect(
      Object.entries(served.components.messages).flatMap(([name, message]) =>
        message.examples.flatMap((example) =>
          [
            ...mismatches(served, message.headers, example.headers),
            ...mismatches(served, message.payload, example.payload),
          ].map((why) => `${name}/${example.name}: ${why}`),
        ),
      ),
    ).toEqual([]);
  });

  it('When the command examples are produced exactly as documented, then the writer stores the plant and answers each as its reply example says', async () => {
    const harness = await startTestGateway();
    const { document, lossless } = await servedDocument(harness);
    const { createPlant } = lossless.components.messages;
    const [key] = createPlant.bindings.kafka.key.examples;

    await harness.producer.send({
      topic: document.channels.createCommands.address,
      messages: createPlant.examples.map(({ headers, payload }) => ({
        key,
        headers,
        value: stringifyJson(payload),
      })),
    });

    const replies = (await harness.received(harness.topics.replies, 2)).map((reply) =>
      asDocumented(document, document.components.messages.createPlantReply, reply, JSON.parse),
    );
    expect(replies.map(({ example }) => example.name)).toEqual(['created', 'conflicting']);
    for (const { example, key: replyKey, partition, headers, payload, departures } of replies) {
      expect(departures, example.name).toEqual([]);
      expect(headers, example.name).toMatchObject(example.headers);
      expect(payload, example.name).toEqual(example.payload);
      expect(replyKey, example.name).toBe(headers[HEADERS.correlationId]);
      expect(partition, example.name).toBe(0);
    }
    const { id, name, tag } = createPlant.examples[0]?.payload as {
      id: bigint;
      name: string;
      tag: string;
    };
    expect(await harness.db.collection<{ _id: bigint }>('plants').findOne({ _id: id })).toEqual(
      expect.objectContaining({ name, tag }),
    );
  });

  it('When the dead-letter examples (4000, 4001) are produced as commands, then each gets its reply example and lands on the DLQ with the documented headers', async () => {
    const harness = await startTestGateway();
    const { document } = await servedDocument(harness);
    const { deadLetter, createPlantReply } = document.components.messages;
    const [key] = deadLetter.bindings.kafka.key.examples;
    const reasons = new Set<string>([HEADERS.errorCode, HEADERS.errorMessage]);

    await harness.producer.send({
      topic: document.channels.createCommands.address,
      messages: deadLetter.examples.map(({ headers, payload }) => ({
        key,
        headers: Object.fromEntries(Object.entries(headers).filter(([name]) => !reasons.has(name))),
        value: String(payload),
      })),
    });

    const letters = (await harness.received(document.channels.deadLetters.address, 2)).map(
      (letter) => asDocumented(document, deadLetter, letter, (text) => text),
    );
    const replies = (await harness.received(harness.topics.replies, 2)).map((reply) =>
      asDocumented(document, createPlantReply, reply, JSON.parse),
    );
    expect(letters.map(({ example }) => example.headers[HEADERS.errorCode])).toEqual([
      '4000',
      '4001',
    ]);
    for (const { example, key: letterKey, headers, payload, departures } of letters) {
      expect(departures, example.name).toEqual([]);
      expect(headers, example.name).toMatchObject(example.headers);
      expect(payload, example.name).toBe(example.payload);
      expect(letterKey, example.name).toBe(key);
    }
    expect(replies.map(({ example }) => example.name)).toEqual(['notNewPlant', 'notJson']);
    for (const { example, headers, payload, departures } of replies) {
      expect(departures, example.name).toEqual([]);
      expect(headers, example.name).toMatchObject(example.headers);
      expect(payload, example.name).toEqual(example.payload);
    }
  });
});
