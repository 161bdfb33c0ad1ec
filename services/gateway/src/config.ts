import Type from 'typebox';
import { readConfig, sharedSettings } from '../../../shared/config.ts';

export const GatewayConfig = Type.Object({
  ...sharedSettings,
  PORT: Type.Integer({ default: 3000, minimum: 0, maximum: 65_535 }),
  HOST: Type.String({ default: '127.0.0.1', description: '0.0.0.0 in containers' }),
  AUTH_TOKENS: Type.String({ minLength: 1, description: 'Comma-separated static bearer tokens' }),
  REPLY_TIMEOUT_MS: Type.Integer({ default: 5_000, minimum: 1 }),
  BODY_LIMIT_BYTES: Type.Integer({ default: 16_384, minimum: 64 }),
});

export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(GatewayConfig, env);
}
