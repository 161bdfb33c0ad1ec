import type { FastifyPluginAsync, FastifyPluginCallback } from 'fastify';
import fp from 'fastify-plugin';
import type { Kafka } from 'kafkajs';
import type { Histogram } from 'prom-client';
import type { Topics } from '../../../../shared/contracts/kafka.ts';
import { commandPublisher, type CommandPublisher } from '../command-publisher.ts';
import { createPlantOverKafka, type CreatePlant } from '../create-plant.ts';
import { startReplyConsumer, type ReplyConsumer } from '../reply-consumer.ts';
import type { ReplyWaiter } from '../reply-waiter.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The use case behind POST /plants. */
    createPlant: CreatePlant;
    commandPublisher: CommandPublisher;
    replyConsumer: ReplyConsumer;
  }
}

export interface KafkaCreatesOptions {
  kafka: Kafka;
  topics: Topics;
  waiter: ReplyWaiter;
  produceDuration: Histogram<'outcome'>;
  replyTimeoutMs: number;
  /** Requests that may wait for a writer at once; more are refused rather than queued. */
  maxInFlight: number;
}

/** The producer of create commands, disconnected once the app has answered its last request. */
const commandPublisherClient = fp<
  Omit<KafkaCreatesOptions, 'waiter' | 'replyTimeoutMs' | 'maxInFlight'>
>(
  async (app, options) => {
    const publisher = await commandPublisher(
      options.kafka,
      options.topics,
      options.produceDuration,
      app.log,
    );
    app.decorate('commandPublisher', publisher);
    app.addHook('onClose', () => publisher.disconnect());
  },
  { name: 'command-publisher' },
);

/** The consumer of replies, disconnected once the app has answered its last request. */
const replyConsumerClient = fp<Pick<KafkaCreatesOptions, 'kafka' | 'topics' | 'waiter'>>(
  async (app, options) => {
    const consumer = await startReplyConsumer(
      options.kafka,
      options.topics.replies,
      options.waiter,
    );
    app.decorate('replyConsumer', consumer);
    app.addHook('onClose', () => consumer.disconnect());
  },
  { name: 'reply-consumer' },
);

/** Creates over Kafka: publish the command, wait for a writer's reply. */
export function kafkaCreates(options: KafkaCreatesOptions): FastifyPluginAsync {
  return fp(
    async (app) => {
      await app.register(replyConsumerClient, options);
      await app.register(commandPublisherClient, options);
      app.decorate(
        'createPlant',
        createPlantOverKafka({
          publisher: app.commandPublisher,
          waiter: options.waiter,
          replyTimeoutMs: options.replyTimeoutMs,
          maxInFlight: options.maxInFlight,
        }),
      );
    },
    { name: 'creates' },
  );
}

/** Creates answered by `createPlant` in this process: the bench's baselines. */
export function createsWith(createPlant: CreatePlant): FastifyPluginCallback {
  return fp(
    (app, _options, done) => {
      app.decorate('createPlant', createPlant);
      done();
    },
    { name: 'creates' },
  );
}
