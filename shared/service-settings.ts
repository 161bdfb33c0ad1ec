import Type from 'typebox';
import { readConfig, failOn } from './config.ts';
import { TOPICS, type Topics } from './contracts/kafka.ts';
import {
  kafkaConnectionOf,
  kafkaConnectionSettings,
  type KafkaConnection,
} from './kafka/connection.ts';

/** Kafka's own rule for topic names. */
const TOPIC_NAME = '^[a-zA-Z0-9._-]{1,249}$';

/**
 * @public Exported because the bench checks its --log-level against it.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables both services read. */
export const sharedSettings = {
  ...kafkaConnectionSettings,
  KAFKA_PARTITIONS: Type.Integer({ default: 3, minimum: 1, maximum: 1000 }),
  KAFKA_CREATE_TOPIC: Type.String({ default: TOPICS.create, pattern: TOPIC_NAME }),
  KAFKA_REPLY_TOPIC: Type.String({ default: TOPICS.replies, pattern: TOPIC_NAME }),
  KAFKA_DLQ_TOPIC: Type.String({ default: TOPICS.dlq, pattern: TOPIC_NAME }),
  LOG_LEVEL: Type.Union(
    LOG_LEVELS.map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
};

export function topicsOf(config: {
  KAFKA_CREATE_TOPIC: string;
  KAFKA_REPLY_TOPIC: string;
  KAFKA_DLQ_TOPIC: string;
}): Topics {
  return {
    create: config.KAFKA_CREATE_TOPIC,
    replies: config.KAFKA_REPLY_TOPIC,
    dlq: config.KAFKA_DLQ_TOPIC,
  };
}

/**
 * The Kafka connection the variables in `env` describe, for tools and scripts beside the services.
 * @public Exported because deploy/local and the tests reach Kafka as the services do.
 */
export function kafkaConnectionFromEnv(env: NodeJS.ProcessEnv = process.env): KafkaConnection {
  const settings = readConfig(Type.Object(kafkaConnectionSettings), env);
  const problems: string[] = [];
  const connection = kafkaConnectionOf(settings, problems);
  failOn(problems);
  return connection;
}
