import Type from 'typebox';
import { readConfig } from '../../../shared/config.ts';

export const WriterConfig = Type.Object({
  KAFKA_BROKERS: Type.String({ minLength: 1, description: 'Comma-separated host:port list' }),
  MONGODB_URI: Type.String({ pattern: '^mongodb(\\+srv)?://' }),
  MONGODB_DATABASE: Type.String({ default: 'plantstore', minLength: 1 }),
  KAFKA_PARTITIONS: Type.Integer({ default: 3, minimum: 1, maximum: 1000 }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) =>
      Type.Literal(level),
    ),
    { default: 'info' },
  ),
});

export function readWriterConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(WriterConfig, env);
}
