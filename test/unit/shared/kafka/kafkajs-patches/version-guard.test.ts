import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';

const require = createRequire(import.meta.url);
const RUNNER = 'src/consumer/runner.js';

async function guardWith(installed?: string) {
  vi.resetModules();
  if (installed !== undefined)
    vi.doMock('node:module', async (original) => {
      const actual = await original<typeof import('node:module')>();
      return {
        createRequire: (from: string) => {
          const real = actual.createRequire(from);
          return (id: string): unknown =>
            id === 'kafkajs/package.json' ? { version: installed } : real(id);
        },
      };
    });
  return import('#shared/kafka/kafkajs-patches/version-guard.ts');
}

describe("kafkajs's internals, handed out only for the version the patches were checked against", () => {
  afterEach(() => {
    vi.doUnmock('node:module');
  });

  it('When a patch asks for a prototype, then it gets the internal class of the kafkajs installed, once', async () => {
    const { prototypeToPatch } = await guardWith();
    const { prototype } = require(`kafkajs/${RUNNER}`) as { prototype: unknown };

    expect(prototypeToPatch(RUNNER, 'a-patch.ts')).toBe(prototype);
    expect(prototypeToPatch(RUNNER, 'a-patch.ts')).toBeUndefined();
    expect(prototypeToPatch(RUNNER, 'another-patch.ts')).toBe(prototype);
  });

  it('When another kafkajs version is installed, then the patch is refused with both versions named', async () => {
    const { prototypeToPatch } = await guardWith('2.3.0');

    expect(() => prototypeToPatch(RUNNER, 'a-patch.ts')).toThrow(
      "a-patch.ts replaces methods of kafkajs 2.2.4's src/consumer/runner.js, but kafkajs 2.3.0 is installed: check them against it",
    );
  });
});
