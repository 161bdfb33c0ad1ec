import { createServer } from 'node:net';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { pingMongo } from '#local/store/mongo-ping.ts';
import { readEnvFile } from '#local/secure-stack.ts';
import { kafkaConnectionFromEnv } from '#shared/service-settings.ts';
import { LOOPBACK } from '#local/provision/ports.ts';
import {
  childPids,
  isAlive,
  listTopics,
  portArgs,
  runInfra,
  serversStarted,
} from '../support/servers/infra-process.ts';
import {
  localServersUnavailable,
  OWN_STACK_TIMEOUT_MS,
  temporaryDirectory,
} from '../support/servers/local-servers.ts';

describe.skipIf(localServersUnavailable)('npm run infra', { timeout: OWN_STACK_TIMEOUT_MS }, () => {
  it.each(['SIGINT', 'SIGTERM', 'SIGHUP'] as const)(
    'When started, then it prints addresses that answer and its log folder, and %s stops every server it started',
    async (signal) => {
      const dir = await temporaryDirectory();
      const infra = runInfra(await portArgs(dir));
      await infra.printed('Ctrl-C stops both.');
      const brokers = /KAFKA_BROKERS=(\S+)/.exec(infra.output())?.[1] ?? '';
      const mongoUri = /MONGODB_URI=(\S+)/.exec(infra.output())?.[1] ?? '';
      const servers = childPids(infra.child.pid ?? 0);

      await expect(listTopics(brokers)).resolves.toBeInstanceOf(Array);
      await expect(pingMongo(mongoUri)).resolves.toBeUndefined();
      expect(infra.output()).toContain(`Logs: ${join(dir, 'logs')}`);
      expect(servers).toHaveLength(serversStarted(infra.output()));

      infra.child.kill(signal);
      expect(await infra.exited).toBe(0);
      expect(servers.filter(isAlive)).toEqual([]);
    },
  );

  it("When started with --secure, then it prints where the CA and each principal's settings are, and those settings connect only as that principal", async () => {
    const dir = await temporaryDirectory();
    const infra = runInfra([...(await portArgs(dir)), '--secure']);
    await infra.printed('Ctrl-C stops both.');

    expect(infra.output()).toContain(`CA: ${join(dir, 'ca.pem')}`);
    expect(infra.output()).toContain(
      `Settings and passwords of each principal: ${['gateway', 'writer', 'producer', 'dlq'].map((name) => join(dir, `${name}.env`)).join(', ')}`,
    );
    const writer = await readEnvFile(join(dir, 'writer.env'));
    const admin = new Kafka({
      ...kafkaConnectionFromEnv(await readEnvFile(join(dir, 'gateway.env'))),
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    const visible = await admin.listTopics().finally(() => admin.disconnect());
    expect(visible.toSorted()).toEqual(['plants.create', 'plants.create.replies']);
    await expect(
      pingMongo(`${writer.MONGODB_URI ?? ''}&tlsCAFile=${writer.MONGODB_TLS_CA_FILE ?? ''}`),
    ).resolves.toBeUndefined();
    await expect(pingMongo(writer.MONGODB_URI?.replace('&tls=true', '') ?? '')).rejects.toThrow(
      /connection <monitor> to 127\.0\.0\.1:\d+ closed/,
    );

    infra.child.kill('SIGINT');
    expect(await infra.exited).toBe(0);
  });

  it('When a directory formatted without --secure is started with it, then it exits naming the directory, leaving no server behind', async () => {
    const dir = await temporaryDirectory();
    const args = await portArgs(dir);
    const plain = runInfra(args);
    await plain.printed('Ctrl-C stops both.');
    plain.child.kill('SIGINT');
    expect(await plain.exited).toBe(0);

    const secured = runInfra([...args, '--secure']);

    expect(await secured.exited).toBe(1);
    expect(secured.output()).toContain(
      `${join(dir, 'kafka')} holds a Kafka formatted without --secure: its users are made when it is formatted. Use another --dir, or delete this one to start afresh.`,
    );
    expect(childPids(secured.child.pid ?? 0)).toEqual([]);
  });

  it('When a port is taken, then it exits at once naming the port and how to choose another', async () => {
    const dir = await temporaryDirectory();
    const taken = createServer().listen(0, LOOPBACK);
    await new Promise((resolve) => taken.once('listening', resolve));
    const address = taken.address();
    const port = address && typeof address === 'object' ? address.port : 0;

    const infra = runInfra([...(await portArgs(dir)), '--mongodb-port', String(port)]);

    expect(await infra.exited).toBe(1);
    taken.close();
    expect(infra.output()).toContain(`${LOOPBACK}:${port} is already in use`);
    expect(infra.output()).toContain('--mongodb-port');
  });

  it('When three brokers would share a port, then it exits at once naming the port', async () => {
    const infra = runInfra([
      '--dir',
      await temporaryDirectory(),
      '--brokers',
      '3',
      '--kafka-port',
      '29092',
      '--kafka-controller-port',
      '29094',
    ]);

    expect(await infra.exited).toBe(2);
    expect(infra.output()).toContain('Port 29094 would be used twice.');
  });
});
