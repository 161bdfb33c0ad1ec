import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Kafka } from 'kafkajs';
import type { Topics } from '#shared/contracts/kafka.ts';
import type { ConcurrencyLimit } from '../admission/concurrency-limit.ts';
import { commandPublisher, type CommandPublisher } from '../kafka/command-publisher.ts';
import type { GatewaySettings } from '../config.ts';
import { createPlantOverKafka, type CreatePlant } from '../create-plant.ts';
import { startReplyConsumer, type ReplyConsumer } from '../kafka/reply-consumer.ts';
import { partitionCountOf, replyPartitionOf } from '../kafka/reply-partition.ts';
import type { ReplyWaiter } from '../kafka/reply-waiter.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The use case behind POST /plants. */
    createPlant: CreatePlant;
    /** Why `createPlant` cannot be served yet, or undefined once it can: `/readyz` reads it. */
    createsNotReadyReason(): string | undefined;
    commandPublisher: CommandPublisher;
    replyConsumer: ReplyConsumer;
  }
}

interface KafkaClientOptions {
  kafka: Kafka;
  topics: Topics;
  /** The partition of the reply topic this gateway reads. */
  replyPartition: number;
}

interface PublisherOptions extends KafkaClientOptions {
  lingerMaxMs: number;
}

/** The producer of create commands, disconnected once the app has answered its last request. */
const commandPublisherClient = fp<PublisherOptions>(
  async (app, { kafka, topics, replyPartition, lingerMaxMs }) => {
    const publisher = await commandPublisher(kafka, {
      topics: { ...topics, replyPartition },
      lingerMaxMs,
      produceDuration: app.metrics.produceDuration,
      logger: app.log,
    });
    app.decorate('commandPublisher', publisher);
    app.addHook('onClose', () => publisher.disconnect());
  },
  { name: 'command-publisher', dependencies: ['http-metrics'] },
);

/** The consumer of replies, disconnected once the app has answered its last request. */
const replyConsumerClient = fp<KafkaClientOptions & { waiter: ReplyWaiter }>(
  async (app, { kafka, topics, waiter, replyPartition }) => {
    const consumer = await startReplyConsumer(kafka, topics.replies, waiter, {
      partition: replyPartition,
      fetched: { records: app.metrics.repliesFetched, bytes: app.metrics.replyBytesFetched },
    });
    app.decorate('replyConsumer', consumer);
    app.addHook('onClose', () => consumer.disconnect());
  },
  { name: 'reply-consumer', dependencies: ['http-metrics'] },
);

/** Creates over Kafka: publish the command, wait for a writer's reply. */
export function kafkaCreates(
  settings: Pick<
    GatewaySettings,
    'topics' | 'replyTimeoutMs' | 'replyPartition' | 'publishLingerMaxMs'
  >,
  { kafka, waiter, admission }: { kafka: Kafka; waiter: ReplyWaiter; admission: ConcurrencyLimit },
): FastifyPluginAsync {
  return fp(
    async (app) => {
      const { topics } = settings;
      const partitions = await partitionCountOf(kafka, topics.replies);
      const replyPartition = replyPartitionOf(settings.replyPartition, topics.replies, partitions);
      app.log.info(
        {
          replyPartition,
          partitions,
          configured: settings.replyPartition.configured !== undefined,
        },
        `reading replies on partition ${String(replyPartition)} of ${topics.replies}`,
      );
      await app.register(replyConsumerClient, { kafka, topics, waiter, replyPartition });
      await app.register(commandPublisherClient, {
        kafka,
        topics,
        replyPartition,
        lingerMaxMs: settings.publishLingerMaxMs,
      });
      app.decorate(
        'createPlant',
        createPlantOverKafka({
          publisher: app.commandPublisher,
          waiter,
          replyTimeoutMs: settings.replyTimeoutMs,
          admission,
        }),
      );
      app.decorate('createsNotReadyReason', () => app.replyConsumer.notReadyReason());
    },
    { name: 'creates' },
  );
}
