import Type from 'typebox';
import { readConfig, sharedSettings } from '../../../shared/config.ts';

export const WriterConfig = Type.Object({
  ...sharedSettings,
  MONGODB_URI: Type.String({ pattern: '^mongodb(\\+srv)?://' }),
  MONGODB_DATABASE: Type.String({ default: 'plantstore', minLength: 1 }),
});

export function readWriterConfig(env: NodeJS.ProcessEnv = process.env) {
  return readConfig(WriterConfig, env);
}
