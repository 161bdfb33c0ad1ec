import type { ParseArgsOptionsConfig } from 'node:util';

/** The flags of both commands that start a local stack, `npm start` and `npm run infra`. */
export const STACK_FLAGS = {
  // A secured stack's users are made when its Kafka is formatted: it keeps a folder of its own.
  dir: { type: 'string' },
  secure: { type: 'boolean', default: false },
  brokers: { type: 'string', default: '1' },
} satisfies ParseArgsOptionsConfig;
