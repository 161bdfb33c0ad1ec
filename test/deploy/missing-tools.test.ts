import { chmod, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../deploy/local/ports.ts';
import { MissingToolError, requireTools, JAVA } from '../../deploy/local/tools.ts';
import { childPids, runInfra } from '../support/infra-process.ts';
import { temporaryDirectory } from '../support/local-servers.ts';

/** A PATH holding only `node`, so that Java, Maven, Go and mongod are all missing. */
async function pathWithOnlyNode(): Promise<string> {
  const bin = await temporaryDirectory();
  await symlink(process.execPath, join(bin, 'node'));
  return bin;
}

describe('Missing tools', () => {
  it('When Java, Maven and Go are missing on a cold cache, then `npm run infra` names each with how to install it and exits', async () => {
    const [bin, cache, dir] = await Promise.all([
      pathWithOnlyNode(),
      temporaryDirectory(),
      temporaryDirectory(),
    ]);
    const ports = await Promise.all([freePort(), freePort(), freePort()]);

    const infra = runInfra(
      [
        '--dir',
        dir,
        '--kafka-port',
        `${ports[0]}`,
        '--kafka-controller-port',
        `${ports[1]}`,
        '--mongodb-port',
        `${ports[2]}`,
      ],
      { PATH: bin, PLANT_STORE_CACHE_DIR: cache, HOME: dir },
    );

    expect(await infra.exited).toBe(1);
    const output = infra.output();
    expect(output).toContain('Missing java, mvn, go on PATH');
    expect(output).toContain('apt-get install openjdk-17-jre-headless');
    expect(output).toContain('apt-get install maven');
    expect(output).toContain('install Go 1.22 or newer');
    expect(output).toContain('KAFKA_BROKERS and MONGODB_URI');
    expect(childPids(infra.child.pid ?? 0)).toEqual([]);
  });

  it('When the Java on PATH is older than 17, then the error says which version it found', async () => {
    const bin = await temporaryDirectory();
    const fakeJava = join(bin, 'java');
    await writeFile(fakeJava, '#!/bin/sh\necho \'openjdk version "11.0.22" 2024-01-16\' >&2\n');
    await chmod(fakeJava, 0o755);

    const checkJava = () => {
      requireTools([JAVA], { PATH: bin });
    };
    expect(checkJava).toThrow(MissingToolError);
    expect(checkJava).toThrow('found Java 11');
  });
});
