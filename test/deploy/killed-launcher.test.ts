import { cp, mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FERRETDB_CACHE_NAME, provisionFerretDb } from '#local/store/ferretdb.ts';
import { KAFKA_CACHE_NAME, provisionKafka } from '#local/kafka/jars.ts';
import { pingMongo } from '#local/store/mongo-ping.ts';
import { isRunning, processIdentity } from '#local/process/process-identity.ts';
import { cacheRoot, projectRoot } from '#local/provision/paths.ts';
import { findOnPath } from '#local/provision/tools.ts';
import {
  childPids,
  listTopics,
  portArgs,
  runInfra,
  serversStarted,
  type InfraRun,
} from '../support/servers/infra-process.ts';
import {
  localServersUnavailable,
  OWN_STACK_TIMEOUT_MS,
  temporaryDirectory,
} from '../support/servers/local-servers.ts';

/**
 * A cache directory of the test's own, so that its registry of servers is seen by no other start
 * on the machine, holding the machine's provisioned Kafka and FerretDB (provisioned if need be).
 */
async function cacheOfItsOwn(): Promise<string> {
  const shared = cacheRoot();
  const cache = await temporaryDirectory();
  const log = join(cache, 'provision.log');
  await provisionKafka(shared, log);
  await symlink(join(shared, KAFKA_CACHE_NAME), join(cache, KAFKA_CACHE_NAME));
  if (findOnPath('mongod') === null) {
    await provisionFerretDb(shared, log);
    await symlink(join(shared, FERRETDB_CACHE_NAME), join(cache, FERRETDB_CACHE_NAME));
  }
  return cache;
}

/**
 * Another checkout of the project in a folder of its own: the launcher's sources copied, the
 * dependencies linked. Its `.local/` is another one than this checkout's.
 */
async function anotherClone(): Promise<string> {
  const clone = await temporaryDirectory();
  for (const part of ['deploy', 'shared', 'tooling', 'scripts', 'package.json'])
    await cp(join(projectRoot, part), join(clone, part), { recursive: true });
  await symlink(join(projectRoot, 'node_modules'), join(clone, 'node_modules'));
  await mkdir(join(clone, '.local'));
  return clone;
}

/** The servers of a started `npm run infra`, killed at the end of the test if still running. */
async function startedServers(infra: InfraRun) {
  await infra.printed('Ctrl-C stops both.');
  const servers = childPids(infra.child.pid ?? 0).flatMap((pid) => processIdentity(pid) ?? []);
  onTestFinished(() => {
    for (const server of servers.filter(isRunning)) process.kill(server.pid, 'SIGKILL');
  });
  expect(servers).toHaveLength(serversStarted(infra.output()));
  return servers;
}

describe.skipIf(localServersUnavailable)(
  'A launcher killed with SIGKILL',
  { timeout: OWN_STACK_TIMEOUT_MS },
  () => {
    it('When `npm run infra` is killed with SIGKILL, then its servers exit by themselves', async () => {
      const env = { ...process.env, PLANT_STORE_CACHE_DIR: await cacheOfItsOwn() };
      const infra = runInfra(await portArgs(await temporaryDirectory()), env);
      const servers = await startedServers(infra);

      infra.child.kill('SIGKILL');
      await infra.exited;

      await expect.poll(() => servers.filter(isRunning), { timeout: 30_000 }).toEqual([]);
    }, 120_000);

    it('When `npm run infra` is killed with SIGKILL while its servers hang in their stop, then `npm run infra` of another clone on the same ports stops them and comes up', async () => {
      const env = { ...process.env, PLANT_STORE_CACHE_DIR: await cacheOfItsOwn() };
      const ports = (await portArgs(await temporaryDirectory())).slice(2);
      const kafkaPort = ports[ports.indexOf('--kafka-port') + 1] ?? '';
      const first = runInfra(['--dir', await temporaryDirectory(), ...ports], env);
      const servers = await startedServers(first);
      // Stopped processes act on no SIGTERM, neither the launcher's nor the one due at its death.
      for (const server of servers) process.kill(server.pid, 'SIGSTOP');
      first.child.kill('SIGTERM');
      await first.printed('SIGTERM: stopping');
      first.child.kill('SIGKILL');
      await first.exited;

      const second = runInfra(
        ['--dir', await temporaryDirectory(), ...ports],
        env,
        await anotherClone(),
      );
      await second.printed('Ctrl-C stops both.');

      expect(second.output()).toContain(
        'Stopped the servers of a launcher that was killed without stopping them: ',
      );
      for (const { pid } of servers) expect(second.output()).toContain(`(pid ${String(pid)})`);
      const brokers = /KAFKA_BROKERS=(\S+)/.exec(second.output())?.[1] ?? '';
      expect(brokers).toBe(`127.0.0.1:${kafkaPort}`);
      await expect(listTopics(brokers)).resolves.toBeInstanceOf(Array);
      await expect(
        pingMongo(/MONGODB_URI=(\S+)/.exec(second.output())?.[1] ?? ''),
      ).resolves.toBeUndefined();
      expect(servers.filter(isRunning)).toEqual([]);
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    }, 240_000);
  },
);
