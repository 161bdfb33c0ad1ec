import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import { GATEWAY_MAIN, startNodeService, WRITER_MAIN } from '#local/process/node-service.ts';
import { freePort } from '#local/provision/ports.ts';
import type { ServerProcess } from '#local/process/server-process.ts';
import { TOKEN } from '../support/servers/gateway.ts';
import { testKafka, uniqueName } from '../support/servers/kafka.ts';

/** Short enough for a test, long enough for several attempts. */
const STARTUP_TIMEOUT_MS = '4000';

/** A service on topics of its own (`prefix`), stopped when the test ends if it still runs. */
function startService(script: string, prefix: string, env: NodeJS.ProcessEnv): ServerProcess {
  const service = startNodeService({
    name: uniqueName(script.includes('writer') ? 'writer' : 'gateway'),
    script,
    env: {
      ...process.env,
      KAFKA_BROKERS: inject('kafkaBrokers'),
      MONGODB_URI: inject('mongoUri'),
      MONGODB_DATABASE: `start-${randomUUID()}`,
      KAFKA_CREATE_TOPIC: `${prefix}.create`,
      KAFKA_REPLY_TOPIC: `${prefix}.replies`,
      KAFKA_DLQ_TOPIC: `${prefix}.dlq`,
      KAFKA_WRITER_GROUP: uniqueName('writers'),
      AUTH_TOKENS: TOKEN,
      METRICS_PORT: '0',
      PORT: '0',
      STARTUP_TIMEOUT_MS,
      ...env,
    },
    logDir: join(inject('serverLogDir') ?? '', 'start-up-failures'),
  });
  onTestFinished(() => service.stop());
  return service;
}

/** The log's lines at warn and above, as pino wrote them. */
function problemsLogged(service: ServerProcess): { level: number; msg: string }[] {
  return readFileSync(service.logFile, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; name?: string })
    .filter(
      ({ level, msg }) => level >= 40 && typeof msg === 'string' && !msg.startsWith('Response'),
    );
}

describe('A service that cannot start', () => {
  it('When the store cannot be reached, then the writer says it waits for it at each attempt, and after STARTUP_TIMEOUT_MS exits 1 naming it', async () => {
    const closedPort = await freePort();
    const writer = startService(WRITER_MAIN, uniqueName('start'), {
      MONGODB_URI: `mongodb://127.0.0.1:${String(closedPort)}/?directConnection=true`,
      // Each attempt waits 5 s for the server (serverSelectionTimeoutMS): room for two.
      STARTUP_TIMEOUT_MS: '12000',
    });

    const exit = await writer.exited;

    expect(exit).toEqual({ code: 1, signal: null });
    const logged = problemsLogged(writer);
    expect(logged.at(0)?.msg).toMatch(
      /^waiting for the store at MONGODB_URI \(database start-.*\): connect ECONNREFUSED/,
    );
    expect(logged.at(-1)).toMatchObject({ level: 60 });
    expect(logged.at(-1)?.msg).toMatch(
      /^gave up waiting for the store at MONGODB_URI \(database start-.*\) after 12000 ms \(STARTUP_TIMEOUT_MS\): connect ECONNREFUSED/,
    );
  });

  it('When no broker answers, then the gateway does not listen and after STARTUP_TIMEOUT_MS exits 1 naming the topics it waited for', async () => {
    const closedPort = await freePort();
    const prefix = uniqueName('start');
    const gateway = startService(GATEWAY_MAIN, prefix, {
      KAFKA_BROKERS: `127.0.0.1:${String(closedPort)}`,
    });

    const exit = await gateway.exited;

    expect(exit).toEqual({ code: 1, signal: null });
    expect(problemsLogged(gateway).at(-1)).toMatchObject({
      level: 60,
      msg: `gave up waiting for Kafka to create the topics ${prefix}.create, ${prefix}.replies and elect a leader for each partition after 4000 ms (STARTUP_TIMEOUT_MS): attempt 1 had not ended`,
    });
    expect(readFileSync(gateway.logFile, 'utf8')).not.toContain('Server listening');
  });

  it('When Kafka refuses to create a topic, then the writer exits 1 at once, without waiting, naming the topic and the refusal', async () => {
    // Kafka refuses a name that differs from an existing one only in '.' against '_'.
    const prefix = uniqueName('start');
    const admin = testKafka().admin();
    await admin.connect();
    onTestFinished(() => admin.disconnect());
    await admin.createTopics({ topics: [{ topic: `${prefix}.create` }], waitForLeaders: true });
    const colliding = `${prefix}_create`;
    const writer = startService(WRITER_MAIN, prefix, { KAFKA_CREATE_TOPIC: colliding });

    const exit = await writer.exited;

    expect(exit).toEqual({ code: 1, signal: null });
    const logged = problemsLogged(writer);
    expect(
      logged.filter(({ level, msg }) => level === 40 && msg.startsWith('waiting for')),
    ).toEqual([]);
    expect(logged.at(-1)?.level).toBe(60);
    expect(logged.at(-1)?.msg).toMatch(
      /^waiting for Kafka to create the topics .* cannot succeed: /,
    );
    expect(logged.at(-1)?.msg).toContain(
      `Kafka did not create the topic ${colliding}: The request attempted to perform an operation on an invalid topic (INVALID_TOPIC_EXCEPTION)`,
    );
  });
});
