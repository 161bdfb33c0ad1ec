import { HEADERS, WRITER_GROUP, type Topics } from '../kafka.ts';
import { stringifyJson } from '../json.ts';
import { Reply } from '../reply.ts';
import { BINDING_VERSION, kafkaMessages, NEW_PLANT_ON_THE_WIRE } from './messages.ts';

const DESCRIPTION = `Create plants by producing a command on the create topic, from any Kafka client; \
this is what the HTTP gateway does for \`POST /plants\`. Header names are those of Spring's \
ReplyingKafkaTemplate and NestJS's ClientKafka, so both can call the writer directly.

- **Key** the command by the plant id (decimal string) so that commands for one id stay in order.
- **Reply**: name a reply topic in \`kafka_replyTopic\` and a correlation id in \
\`kafka_correlationId\`; the reply carries it back. Without a reply topic the command is \
fire-and-forget.
- **Idempotent**: the same id with the same content is answered 200 again, so a command may be \
retried when no reply came; another name or tag is 400/4009.
- **Refusals** (4000, 4001) are replied to and copied to the DLQ; they never stop a partition.
- **int64 ids** are JSON numbers with every digit, in the payload and in these examples: parse \
them losslessly (a double rounds 9007199254740993 to …992).`;

/** An operation on one message of a channel. */
const operation = (
  action: 'send' | 'receive',
  channel: string,
  message: string,
  more: Record<string, unknown>,
) => ({
  action,
  channel: { $ref: `#/channels/${channel}` },
  messages: [{ $ref: `#/channels/${channel}/messages/${message}` }],
  ...more,
});

/** The request-reply of a create: the reply goes wherever the command's kafka_replyTopic says. */
const REPLY = {
  address: {
    description: 'The topic the command names in `kafka_replyTopic`.',
    location: `$message.header#/${HEADERS.replyTopic}`,
  },
  channel: { $ref: '#/channels/replies' },
  messages: [{ $ref: '#/channels/replies/messages/createPlantReply' }],
};

/** The channels: the command topic, any reply topic, the gateways' replies, the DLQ. */
function channelsOf(topics: Topics) {
  const messageRef = (name: keyof ReturnType<typeof kafkaMessages>) => ({
    [name]: { $ref: `#/components/messages/${name}` },
  });
  return {
    createCommands: {
      address: topics.create,
      title: 'Create commands',
      description: 'Read by the writers, in one consumer group.',
      messages: messageRef('createPlant'),
    },
    replies: {
      address: null,
      title: 'Replies',
      description: `Any topic a command names in \`kafka_replyTopic\`: one of your own, or the \
gateways' \`${topics.replies}\` (below), read in a consumer group of your own, dropping the \
replies that are not yours.`,
      messages: messageRef('createPlantReply'),
    },
    gatewayReplies: {
      address: topics.replies,
      title: 'The gateways’ replies',
      description:
        'Every gateway reads all of it, in a consumer group of its own, and drops the replies it does not wait for.',
      messages: messageRef('createPlantReply'),
    },
    deadLetters: {
      address: topics.dlq,
      title: 'Dead letters',
      description:
        'Commands the writer refused (4000, 4001), as received: list and replay them with `npm run dlq`.',
      messages: messageRef('deadLetter'),
    },
  };
}

/** What clients, the writer and the gateways send and receive on those channels. */
const OPERATIONS = {
  createPlant: operation('send', 'createCommands', 'createPlant', {
    title: 'Create a plant (clients, and the gateway for POST /plants)',
    reply: REPLY,
  }),
  receiveCreatePlantReply: operation('receive', 'replies', 'createPlantReply', {
    title: 'Receive the outcome (clients)',
    description: 'Match it to the command by `kafka_correlationId`.',
  }),
  writerReceiveCreatePlant: operation('receive', 'createCommands', 'createPlant', {
    title: 'Store the plant (writer)',
    description:
      'In batches per partition; the offset is committed once the reply is acknowledged (acks = all).',
    bindings: {
      kafka: {
        groupId: {
          type: 'string',
          description: 'The default; a writer’s `KAFKA_WRITER_GROUP` changes it.',
          enum: [WRITER_GROUP],
        },
        bindingVersion: BINDING_VERSION,
      },
    },
    reply: REPLY,
  }),
  writerSendReply: operation('send', 'replies', 'createPlantReply', {
    title: 'Reply with the outcome (writer)',
  }),
  writerSendDeadLetter: operation('send', 'deadLetters', 'deadLetter', {
    title: 'Copy a refused command to the DLQ (writer)',
  }),
  gatewayReceiveReplies: operation('receive', 'gatewayReplies', 'createPlantReply', {
    title: 'Receive the outcome of POST /plants (gateway)',
    bindings: {
      kafka: {
        groupId: {
          type: 'string',
          description: 'Unique per gateway instance.',
          pattern: '^plant-gateway-',
        },
        bindingVersion: BINDING_VERSION,
      },
    },
  }),
};

/**
 * The AsyncAPI 3 document of the Kafka contract on this deployment's topics, built from the same
 * TypeBox schemas the writer validates with. JSON text rather than an object: its examples carry
 * an int64 id above 2^53, written with every digit.
 */
export function asyncApiJson(topics: Topics): string {
  const messages = kafkaMessages(topics.replies);
  return stringifyJson({
    asyncapi: '3.0.0',
    info: {
      title: 'Plant Store Kafka contract',
      version: '1.0.0',
      description: DESCRIPTION,
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    defaultContentType: 'application/json',
    channels: channelsOf(topics),
    operations: OPERATIONS,
    components: {
      schemas: { NewPlant: NEW_PLANT_ON_THE_WIRE, Reply },
      messages,
    },
  });
}
