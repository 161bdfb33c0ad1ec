import { createRequire } from 'node:module';

/** The one kafkajs version whose internals the modules that patch them were written against. */
const KAFKAJS_VERSION = '2.2.4';

/** The modules that have had their prototype: each patches kafkajs once per process. */
const patchers = new Set<string>();

/**
 * The prototype of one of kafkajs's internal classes, for a module of this project that replaces
 * some of its methods (`patchedBy`); undefined when that module has had it already, so that its
 * methods are replaced once however many clients install the patch. Any other installed version
 * stops the process: the methods replaced must be checked against its source first.
 */
export function prototypeToPatch(path: string, patchedBy: string): unknown {
  if (patchers.has(patchedBy)) return undefined;
  patchers.add(patchedBy);
  const require = createRequire(import.meta.url);
  const { version } = require('kafkajs/package.json') as { version: string };
  if (version !== KAFKAJS_VERSION)
    throw new Error(
      `${patchedBy} replaces methods of kafkajs ${KAFKAJS_VERSION}'s ${path}, but kafkajs ${version} is installed: check them against it`,
    );
  return (require(`kafkajs/${path}`) as { prototype: unknown }).prototype;
}
