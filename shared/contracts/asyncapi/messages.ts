import { ERRORS } from '../errors.ts';
import { HEADERS } from '../kafka.ts';
import { MAX_JSON_DEPTH } from '../json.ts';
import { INT64_ON_THE_WIRE, NewPlant } from '../plant.ts';
import { EXAMPLE_ID, kafkaExamples } from './examples.ts';

export const BINDING_VERSION = '0.5.0';
const text = (description: string, more: object = {}) => ({ type: 'string', description, ...more });

const TRACEPARENT = text(
  'Optional W3C Trace Context (`00-<trace id>-<parent id>-<flags>`): the trace a create belongs to, carried from the command through the writer to its reply.',
  { pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
);

const TRACESTATE = text('Optional W3C Trace Context vendor state, carried with `traceparent`.');

const COMMAND_HEADERS = {
  [HEADERS.correlationId]: text(
    'Opaque bytes the writer echoes byte for byte on the reply (the gateway sends a UUID, Spring 16 random bytes, NestJS a random 21-character string).',
  ),
  [HEADERS.replyTopic]: text(
    'Where the writer replies. Absent: fire-and-forget, the plant is stored all the same and nobody hears the outcome.',
  ),
  [HEADERS.replyPartition]: {
    description:
      'Optional partition of the reply topic; absent, the reply key (the correlation id) picks it.',
    anyOf: [
      text('A 4-byte big-endian int32 (Spring ReplyingKafkaTemplate, SmallRye).', {
        format: 'binary',
      }),
      text('A decimal string (NestJS ClientKafka).', { pattern: '^[0-9]{1,9}$' }),
    ],
  },
  [HEADERS.contentType]: text('`application/json`; the value is read as JSON whatever it says.'),
  [HEADERS.requestId]: text(
    'Logged by the writer with the outcome; the gateway sends the HTTP request id.',
  ),
  [HEADERS.deadline]: text(
    'Sent by the gateway: epoch milliseconds after which it no longer waits for the reply. The writer still stores and replies.',
    { pattern: '^[0-9]+$' },
  ),
  [HEADERS.replayOf]: text(
    'On a command replayed from the DLQ (`npm run dlq -- replay`): `partition:offset` of its dead letter.',
    { pattern: '^[0-9]+:[0-9]+$' },
  ),
  traceparent: TRACEPARENT,
  tracestate: TRACESTATE,
};

const PLANT_ID_KEY = text(
  'The plant id as a decimal string, the digits of the payload id: every command for one id lands on one partition (murmur2, as the Java client partitions), so one writer sees them in order.',
  { pattern: '^-?(0|[1-9][0-9]{0,18})$', examples: [String(EXAMPLE_ID)] },
);

export const NEW_PLANT_ON_THE_WIRE = {
  ...NewPlant,
  description:
    `UTF-8 JSON. The id is a JSON number with every digit (int64, never a string, never rounded): ` +
    `read it with a lossless parser, as the writer does, since a double keeps only 53 bits. ` +
    `Unknown properties are ignored. A value that is not UTF-8 JSON, carries \`__proto__\` or ` +
    `\`constructor.prototype\`, repeats a member name, holds an unpaired surrogate or nests deeper ` +
    `than ${String(MAX_JSON_DEPTH)} levels is answered 400/4001; one that does not match this ` +
    `schema, 400/4000. Both are copied to the DLQ and never stop the partition.`,
  properties: { ...NewPlant.properties, id: { ...NewPlant.properties.id, ...INT64_ON_THE_WIRE } },
};

/** The messages of the Kafka contract, with examples that reply on `replyTopic`. */
export function kafkaMessages(replyTopic: string) {
  const examples = kafkaExamples(replyTopic);
  const correlationId = {
    description: 'Replies carry the command’s correlation id.',
    location: `$message.header#/${HEADERS.correlationId}`,
  };
  return {
    createPlant: {
      name: 'createPlant',
      title: 'Create a plant',
      contentType: 'application/json',
      correlationId,
      headers: { type: 'object', properties: COMMAND_HEADERS },
      payload: { $ref: '#/components/schemas/NewPlant' },
      bindings: { kafka: { key: PLANT_ID_KEY, bindingVersion: BINDING_VERSION } },
      examples: examples.commands,
    },
    createPlantReply: {
      name: 'createPlantReply',
      title: 'The outcome of a create command',
      summary: 'The HTTP answer, verbatim: 200 with the stored plant, or 400 with an Error.',
      contentType: 'application/json',
      correlationId,
      headers: {
        type: 'object',
        required: [HEADERS.contentType, HEADERS.nestIsDisposed],
        properties: {
          [HEADERS.correlationId]: text('The command’s, byte for byte; absent when it had none.'),
          [HEADERS.contentType]: text('Always `application/json`.', { const: 'application/json' }),
          [HEADERS.nestIsDisposed]: text(
            'Always `1`: NestJS ClientKafka completes `send()` only on a reply that carries it.',
            { const: '1' },
          ),
          traceparent: TRACEPARENT,
          tracestate: TRACESTATE,
        },
      },
      payload: { $ref: '#/components/schemas/Reply' },
      bindings: {
        kafka: {
          key: {
            type: ['string', 'null'],
            description: 'The command’s correlation id; null when it had none.',
          },
          bindingVersion: BINDING_VERSION,
        },
      },
      examples: examples.replies,
    },
    deadLetter: {
      name: 'deadLetter',
      title: 'A refused command, as received',
      contentType: 'application/octet-stream',
      headers: {
        type: 'object',
        description: 'Every header of the command as received, and the reason it was refused.',
        required: [HEADERS.errorCode, HEADERS.errorMessage],
        properties: {
          ...COMMAND_HEADERS,
          [HEADERS.errorCode]: text('The `error` of the reply, in decimal.', {
            enum: [ERRORS.invalidPlant.error, ERRORS.invalidJson.error].map(String),
          }),
          [HEADERS.errorMessage]: text('The `message` of the reply.'),
        },
      },
      payload: text('The command’s value, byte for byte (shown here as text).', {
        format: 'binary',
      }),
      bindings: {
        kafka: {
          key: text('The command’s key, as received.', { examples: [String(EXAMPLE_ID)] }),
          bindingVersion: BINDING_VERSION,
        },
      },
      examples: examples.deadLetters,
    },
  };
}
