import Type from 'typebox';
import { readConfig } from '../../../shared/config.ts';

export const GatewayConfig = Type.Object({
  PORT: Type.Integer({ default: 3000, minimum: 0, maximum: 65_535 }),
  HOST: Type.String({ default: '127.0.0.1', description: '0.0.0.0 in containers' }),
  AUTH_TOKENS: Type.String({ minLength: 1, description: 'Comma-separated static bearer tokens' }),
  KAFKA_BROKERS: Type.String({ minLength: 1, description: 'Comma-separated host:port list' }),
  KAFKA_PARTITIONS: Type.Integer({ default: 3, minimum: 1, maximum: 1000 }),
  REPLY_TIMEOUT_MS: Type.Integer({ default: 5_000, minimum: 1 }),
  BODY_LIMIT_BYTES: Type.Integer({ default: 16_384, minimum: 64 }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) =>
      Type.Literal(level),
    ),
    { default: 'info' },
  ),
});

export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(GatewayConfig, env);
}
