import { chmod, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MissingToolError, requireTools, JAVA } from '#local/provision/tools.ts';
import { childPids, portArgs, runInfra } from '../support/servers/infra-process.ts';
import { temporaryDirectory } from '../support/servers/local-servers.ts';

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

    const infra = runInfra(await portArgs(dir), {
      PATH: bin,
      PLANT_STORE_CACHE_DIR: cache,
      HOME: dir,
    });

    expect(await infra.exited).toBe(1);
    const output = infra.output();
    expect(output).toContain('Missing java, mvn, go on PATH');
    expect(output).toContain('apt-get install openjdk-17-jre-headless');
    expect(output).toContain('apt-get install maven');
    expect(output).toContain('install Go 1.22 or newer');
    expect(output).toContain('KAFKA_BROKERS and MONGODB_URI');
    expect(childPids(infra.child.pid ?? 0)).toEqual([]);
  });

  it('When a secured stack is asked for without openssl, then openssl is named beside the others', async () => {
    const [bin, cache, dir] = await Promise.all([
      pathWithOnlyNode(),
      temporaryDirectory(),
      temporaryDirectory(),
    ]);

    const infra = runInfra([...(await portArgs(dir)), '--secure'], {
      PATH: bin,
      PLANT_STORE_CACHE_DIR: cache,
      HOME: dir,
    });

    expect(await infra.exited).toBe(1);
    expect(infra.output()).toContain('Missing java, mvn, go, openssl on PATH');
    expect(infra.output()).toContain(
      'openssl, for the certificates of the secured stack (--secure)',
    );
  });

  it('When a secured stack is asked for with mongod on PATH, then it refuses, saying that only FerretDB gets TLS', async () => {
    const [bin, dir] = await Promise.all([pathWithOnlyNode(), temporaryDirectory()]);
    await writeFile(join(bin, 'mongod'), '#!/bin/sh\nexit 0\n');
    await chmod(join(bin, 'mongod'), 0o755);

    const infra = runInfra([...(await portArgs(dir)), '--secure'], { PATH: bin, HOME: dir });

    expect(await infra.exited).toBe(1);
    expect(infra.output()).toContain(
      `--secure runs the store as FerretDB with TLS; ${join(bin, 'mongod')} is on PATH`,
    );
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
