import { createRequire } from 'node:module';

/** The one kafkajs version whose internals the modules that patch them were written against. */
const KAFKAJS_VERSION = '2.2.4';

/**
 * The prototype of one of kafkajs's internal classes, for a module of this project that replaces
 * some of its methods (`patchedBy`). Any other installed version stops the process: the methods
 * replaced must be checked against its source first.
 */
export function kafkajsPrototype(path: string, patchedBy: string): unknown {
  const require = createRequire(import.meta.url);
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== KAFKAJS_VERSION)
    throw new Error(
      `${patchedBy} replaces methods of kafkajs ${KAFKAJS_VERSION}'s ${path}, but kafkajs ${version} is installed: check them against it`,
    );
  return (require(`kafkajs/${path}`) as { prototype: unknown }).prototype;
}
