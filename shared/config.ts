import Type, { type Static, type TObject, type TSchema } from 'typebox';
import Value from 'typebox/value';
import { TOPICS, type Topics } from './contracts/kafka.ts';

/** Kafka's own rule for topic names. */
const TOPIC_NAME = '^[a-zA-Z0-9._-]{1,249}$';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables both services read. */
export const sharedSettings = {
  KAFKA_BROKERS: Type.String({ minLength: 1, description: 'Comma-separated host:port list' }),
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

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the variables a service declares in `schema` from the environment, once at boot: applies
 * defaults, converts numbers, and fails naming the variable when one is missing or invalid.
 */
export function readConfig<Schema extends TObject>(
  schema: Schema,
  env: NodeJS.ProcessEnv = process.env,
): Static<Schema> {
  const given = Object.fromEntries(
    Object.keys(schema.properties).flatMap((name) => {
      const value = env[name];
      return value === undefined || value === '' ? [] : [[name, value]];
    }),
  );
  const config = Value.Convert(schema, Value.Default(schema, given)) as Record<string, unknown>;
  const problems = Object.entries(schema.properties).flatMap(([name, property]) => {
    const value = config[name];
    if (value === undefined) return schema.required.includes(name) ? [`${name} must be set`] : [];
    if (Value.Check(property, value)) return [];
    return [`${name} ${expectation(property, value)} (got "${env[name] ?? ''}")`];
  });
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  return config as Static<Schema>;
}

function expectation(property: TSchema, value: unknown): string {
  if (Type.IsUnion(property)) {
    return `must be one of ${property.anyOf.map((option) => String((option as { const?: unknown }).const)).join(', ')}`;
  }
  const [first] = Value.Errors(property, value);
  return first?.message ?? 'is invalid';
}

/** For entry points: a configuration error is the operator's to fix, so no stack trace. */
export function configOrExit<Config>(read: () => Config): Config {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
